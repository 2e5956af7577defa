import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDocumentClient, loadConfig } from '@memgate/adapters';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAwsRuntime, verifierOptionsFor } from '../../functions/runtime/aws.ts';
import { withoutSharedConfigFiles } from '../../functions/runtime/sdk-config.ts';
import { LAMBDA_RUNTIME } from '../../infra/runtime.ts';

const AWS_ENV = {
  TABLE_NAME: 'memgate-prod-Table',
  VECTOR_STORE: 'pinecone',
  PINECONE_API_KEY: 'pcsk_test_key_123',
  PINECONE_INDEX: 'memgate',
  PINECONE_HOST: 'https://memgate-abc123.svc.aped-4627-b74a.pinecone.io',
  AUTH_JWT_SECRET: 'x'.repeat(32),
};

describe('Lambda runtime', () => {
  // `npm test` runs this project on the Node major of LAMBDA_RUNTIME (scripts/lambda-node.mjs sets the variable).
  it.runIf(process.env.MEMGATE_LAMBDA_NODE_MAJOR)(
    'runs the bundles on the Node major the functions deploy with',
    () => {
      expect(LAMBDA_RUNTIME).toBe(`nodejs${process.env.MEMGATE_LAMBDA_NODE_MAJOR}.x`);
      expect(process.versions.node.split('.')[0]).toBe(process.env.MEMGATE_LAMBDA_NODE_MAJOR);
    },
  );
});

describe('AWS composition root', () => {
  it('builds from the environment infra sets, with the table name it links', () => {
    const runtime = createAwsRuntime(AWS_ENV);
    expect(runtime.inputs.tableName).toBe('memgate-prod-Table');
    expect(runtime.config.VECTOR_STORE).toBe('pinecone');
    runtime.inputs.documentClient.destroy();
  });

  it('refuses the embedded vector store, which does not exist in a Lambda', () => {
    expect(() => createAwsRuntime({ ...AWS_ENV, VECTOR_STORE: 'local' })).toThrow(/VECTOR_STORE=pinecone/);
  });

  it('refuses to start without Pinecone settings, naming them but not their values', () => {
    expect(() => createAwsRuntime({ ...AWS_ENV, PINECONE_API_KEY: '' })).toThrow(/PINECONE_API_KEY/);
  });

  it("refuses to start without the index's host: the bundles carry no control plane to look it up", () => {
    expect(() => createAwsRuntime({ ...AWS_ENV, PINECONE_HOST: '' })).toThrow(/set PINECONE_HOST/);
  });

  it('verifies tokens with the OIDC provider when AUTH_JWKS_URL is set, else with the shared secret', () => {
    const jwks = loadConfig({
      ...AWS_ENV,
      AUTH_JWKS_URL: 'https://issuer.example/.well-known/jwks.json',
      AUTH_ISSUER: 'https://issuer.example/',
      AUTH_AUDIENCE: 'memgate',
    });
    expect(verifierOptionsFor(jwks)).toEqual({
      kind: 'jwks',
      jwksUrl: 'https://issuer.example/.well-known/jwks.json',
      issuer: 'https://issuer.example/',
      audience: 'memgate',
    });
    expect(verifierOptionsFor(loadConfig(AWS_ENV))).toMatchObject({ kind: 'hs256' });
    expect(() => verifierOptionsFor(loadConfig({ ...AWS_ENV, AUTH_JWT_SECRET: '' }))).toThrow(/AUTH_JWKS_URL/);
  });
});

describe("the Lambda's DynamoDB client settings (functions/runtime/sdk-config.ts)", () => {
  // A shared config file that sets what the SDK would otherwise look up there: a Lambda has none, so the runtime's
  // client never reads one, while the environment's variables still apply.
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'memgate-aws-config-'));
    writeFileSync(
      join(dir, 'config'),
      '[default]\nuse_fips_endpoint = true\nuse_dualstack_endpoint = true\naccount_id_endpoint_mode = disabled\n',
    );
    vi.stubEnv('AWS_CONFIG_FILE', join(dir, 'config'));
    vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', join(dir, 'credentials'));
    vi.stubEnv('AWS_PROFILE', 'default');
  });
  afterAll(() => {
    vi.unstubAllEnvs();
    rmSync(dir, { recursive: true, force: true });
  });

  const settingsOf = async (client: ReturnType<typeof createDocumentClient>) => {
    const settings = [
      await client.config.useFipsEndpoint(),
      await client.config.useDualstackEndpoint(),
      await client.config.accountIdEndpointMode(),
    ];
    client.destroy();
    return settings;
  };

  it('takes the SDK defaults instead of reading the shared config files', async () => {
    // Without them, the SDK takes the file's values: the lookup a Lambda's first call makes, on every setting.
    expect(await settingsOf(createDocumentClient({ region: 'us-east-1' }))).toEqual([true, true, 'disabled']);
    const lambda = createDocumentClient({ region: 'us-east-1', sdkConfig: withoutSharedConfigFiles({}) });
    expect(await settingsOf(lambda)).toEqual([false, false, 'preferred']);
  });

  it('leaves a setting whose variable is set to the SDK, which reads it from the environment', async () => {
    const env = {
      AWS_USE_FIPS_ENDPOINT: 'true',
      AWS_ACCOUNT_ID_ENDPOINT_MODE: 'required',
      AWS_ENDPOINT_URL_DYNAMODB: 'http://db:8000',
    };
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    const settings = withoutSharedConfigFiles(env);
    expect(settings).not.toHaveProperty('useFipsEndpoint');
    expect(settings).toMatchObject({ endpoint: 'http://db:8000', ignoreConfiguredEndpointUrls: true });
    const lambda = createDocumentClient({ region: 'us-east-1', sdkConfig: settings });
    expect(await settingsOf(lambda)).toEqual([true, false, 'required']);
    for (const name of Object.keys(env)) vi.stubEnv(name, undefined);
  });
});
