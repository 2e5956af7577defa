import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';

/**
 * The DynamoDB client settings a Lambda would otherwise look up in the shared AWS config files, each given the value
 * the SDK would end with there. For each setting the SDK reads its environment variable, then `~/.aws/config` and
 * `~/.aws/credentials`, then its default; a Lambda has no such files, but the first call of a cold start still reads
 * (and fails to find) them, through one asynchronous lookup per setting: the call is sent later, after the Pinecone
 * client's chunk has loaded, instead of while it loads. A setting whose variable is set is left to the SDK, which
 * reads it from the environment as before; only the fall-through to the files is skipped.
 */
export function withoutSharedConfigFiles(env: Record<string, string | undefined>): Partial<DynamoDBClientConfig> {
  const unset = (...names: string[]) => names.every((name) => env[name] === undefined);
  // The endpoint the SDK would take from the environment (the service's variable first); the files are not read.
  const endpoint = env.AWS_ENDPOINT_URL_DYNAMODB ?? env.AWS_ENDPOINT_URL;
  return {
    ...(unset('AWS_USE_FIPS_ENDPOINT') ? { useFipsEndpoint: false } : {}),
    ...(unset('AWS_USE_DUALSTACK_ENDPOINT') ? { useDualstackEndpoint: false } : {}),
    // Every defaults mode's retry mode is `standard`, the SDK's default.
    ...(unset('AWS_RETRY_MODE') ? { retryMode: 'standard' } : {}),
    ...(unset('AWS_DEFAULTS_MODE') ? { defaultsMode: 'legacy' } : {}),
    ...(unset('AWS_ACCOUNT_ID_ENDPOINT_MODE') ? { accountIdEndpointMode: 'preferred' } : {}),
    ...(unset('AWS_AUTH_SCHEME_PREFERENCE', 'AWS_BEARER_TOKEN_DYNAMODB') ? { authSchemePreference: [] } : {}),
    ...(unset('AWS_DISABLE_CLOCK_SKEW_CORRECTION') ? { disableClockSkewCorrection: false } : {}),
    ...(unset('AWS_IGNORE_CONFIGURED_ENDPOINT_URLS')
      ? { ignoreConfiguredEndpointUrls: true, ...(endpoint ? { endpoint } : {}) }
      : {}),
  };
}
