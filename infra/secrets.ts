/**
 * Secrets, set per stage with `npx sst secret set <Name> <value>`. They reach the functions as environment
 * variables (see infra/functions.ts): handlers read configuration in one place, `loadConfig`, in both runtimes.
 * Optional ones have an empty placeholder, which `loadConfig` reads as unset.
 */
export const secrets = {
  pineconeApiKey: new sst.Secret('PineconeApiKey'),
  embeddingsApiKey: new sst.Secret('EmbeddingsApiKey', ''),
  defaultModelApiKey: new sst.Secret('DefaultModelApiKey', ''),
  authJwtSecret: new sst.Secret('AuthJwtSecret', ''),
};
