import { parseArgs } from 'node:util';
import { loadConfig } from '@memgate/adapters';
import { localJwtSecret } from './secret.ts';
import { DEFAULT_TOKEN_SCOPE, signLocalToken, tokenClaimsProblem } from './token.ts';

const USAGE = `usage: npm run token -- --user <id> [--orgs a,b] [--scope "context:read context:write"] [--expires 30d]
default scope: ${DEFAULT_TOKEN_SCOPE}`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      user: { type: 'string' },
      orgs: { type: 'string' },
      scope: { type: 'string' },
      expires: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help || !values.user) {
    console.error(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  const problem = tokenClaimsProblem({ user: values.user, ...(values.scope ? { scope: values.scope } : {}) });
  if (problem) {
    console.error(`${problem}\n${USAGE}`);
    process.exit(2);
  }
  const config = loadConfig();
  const secret = localJwtSecret(config.DATA_DIR, config.AUTH_JWT_SECRET);
  const orgs = (values.orgs ?? '')
    .split(',')
    .map((org) => org.trim())
    .filter(Boolean);
  const token = await signLocalToken(secret, {
    user: values.user,
    orgs,
    ...(values.scope ? { scope: values.scope } : {}),
    ...(values.expires ? { expiresIn: values.expires } : {}),
  });
  process.stdout.write(`${token}\n`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
