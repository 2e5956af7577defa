// Recording stand-ins for SST's globals: each component records its constructor arguments, outputs are plain
// markers the test can follow (a function's `arn` names the function, a secret's `value` names the secret).

export interface Recorded {
  kind: string;
  name: string;
  args: Record<string, unknown>;
}

export const recorded: Recorded[] = [];
export const routes: { route: string; handler: unknown }[] = [];

const record = (kind: string, name: string, args: Record<string, unknown> = {}) => recorded.push({ kind, name, args });

class Secret {
  readonly value: { secret: string };
  constructor(
    readonly name: string,
    placeholder?: string,
  ) {
    this.value = { secret: name };
    record('Secret', name, placeholder === undefined ? {} : { placeholder });
  }
}

class Dynamo {
  readonly name: { tableName: string };
  readonly arn: string;
  constructor(
    readonly id: string,
    args: Record<string, unknown>,
  ) {
    this.name = { tableName: id };
    this.arn = `arn:table:${id}`;
    record('Dynamo', id, args);
  }
}

class LambdaFunction {
  readonly arn: { functionArn: string };
  readonly url: string;
  constructor(
    readonly name: string,
    args: Record<string, unknown>,
  ) {
    this.arn = { functionArn: name };
    this.url = `https://${name.toLowerCase()}.lambda-url.test/`;
    record('Function', name, args);
  }
}

class ApiGatewayV2 {
  readonly url = 'https://api.test';
  constructor(name: string, args: Record<string, unknown> = {}) {
    record('ApiGatewayV2', name, args);
  }
  route(route: string, handler: unknown) {
    routes.push({ route, handler });
  }
}

class Cron {
  constructor(name: string, args: Record<string, unknown>) {
    record('Cron', name, args);
  }
}

/** Installs the globals `sst.config.ts` and `infra/*.ts` expect; call before importing them. */
export function installRecordingSst(stage = 'prod'): void {
  Object.assign(globalThis, {
    sst: { Secret, aws: { Dynamo, Function: LambdaFunction, ApiGatewayV2, Cron } },
    $config: <T>(config: T) => config,
    $app: { name: 'memgate', stage },
    $dev: false,
    $interpolate: (strings: TemplateStringsArray, ...values: unknown[]) => ({ interpolate: [...strings], values }),
  });
}
