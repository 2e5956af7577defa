// The few SST globals infra/ uses, declared by hand. SST's own declarations (`.sst/platform/config.d.ts`) are
// written by `sst install`, which downloads Pulumi first, so they cannot be had offline; `sst` itself is a pinned
// devDependency (4.17.1) and these shapes follow its component args (https://sst.dev/docs/component/aws/*).
// `Output<T>` is kept opaque.

type SstOutput<T> = T | { readonly __output: T };
type SstInput<T> = T | SstOutput<T>;

interface SstFunctionArgs {
  handler: string;
  bundle?: string;
  runtime?: 'nodejs20.x' | 'nodejs22.x' | 'nodejs24.x';
  architecture?: 'x86_64' | 'arm64';
  memory?: `${number} MB`;
  timeout?: `${number} ${'second' | 'seconds' | 'minute' | 'minutes'}`;
  link?: unknown[];
  environment?: Record<string, SstInput<string>>;
  streaming?: boolean;
  url?:
    | boolean
    | {
        authorization?: 'none' | 'iam';
        cors?: {
          allowOrigins?: string[];
          allowMethods?: string[];
          allowHeaders?: string[];
          exposeHeaders?: string[];
          maxAge?: `${number} ${'second' | 'seconds' | 'minute' | 'minutes'}`;
        };
      };
  description?: string;
}

declare namespace sst {
  class Secret {
    constructor(name: string, placeholder?: string);
    readonly name: string;
    readonly value: SstOutput<string>;
  }
  namespace aws {
    class Dynamo {
      constructor(
        name: string,
        args: {
          fields: Record<string, 'string' | 'number' | 'binary'>;
          primaryIndex: { hashKey: string; rangeKey?: string };
          // A list projects those attributes (INCLUDE) besides the keys (sst's dynamo.ts maps it so).
          globalIndexes?: Record<
            string,
            { hashKey: string; rangeKey?: string; projection?: 'all' | 'keys-only' | string[] }
          >;
          ttl?: string;
          deletionProtection?: boolean;
          transform?: { table?: (args: { pointInTimeRecovery?: { enabled: boolean } }) => void };
        },
      );
      readonly name: SstOutput<string>;
      readonly arn: SstOutput<string>;
    }
    class Function {
      constructor(name: string, args: SstFunctionArgs);
      readonly arn: SstOutput<string>;
      readonly name: SstOutput<string>;
      readonly url: SstOutput<string>;
    }
    class ApiGatewayV2 {
      constructor(
        name: string,
        args?: { cors?: boolean | { allowOrigins?: string[]; allowMethods?: string[]; allowHeaders?: string[] } },
      );
      readonly url: SstOutput<string>;
      route(route: string, handler: SstInput<string> | SstFunctionArgs): unknown;
    }
    class Cron {
      constructor(name: string, args: { schedule: string; function: SstInput<string> | SstFunctionArgs });
    }
  }
}

declare function $config<T extends { app(input: { stage?: string }): unknown; run(): Promise<unknown> }>(config: T): T;
declare const $app: { name: string; stage: string };
declare const $dev: boolean;
declare function $interpolate(strings: TemplateStringsArray, ...values: unknown[]): SstOutput<string>;
