export { type Config, ConfigSchema, LEXICAL_RELEVANCE_FLOOR, loadConfig } from './config/index.ts';
export * from './dynamodb/index.ts';
export { createLexicalEmbedder } from './embedders/lexical/index.ts';
export { createOpenAIEmbedder, type OpenAIEmbedderOptions } from './embedders/openai/index.ts';
export {
  createPineconeInferenceEmbedder,
  type PineconeInferenceEmbedderOptions,
} from './embedders/pinecone/index.ts';
export { createPineconeVectorIndex, type PineconeVectorIndexOptions } from './pinecone/index.ts';
export { createServices, type ServiceInputs, type Services } from './services/index.ts';
export { createTargetGuard, refusalOf, type TargetGuard, type TargetGuardOptions } from './ssrf/index.ts';
export { createUpstreamModel, type UpstreamModelOptions, UpstreamStatusError } from './upstream/index.ts';
