export { type Config, ConfigSchema, loadConfig } from './config/index.ts';
export * from './dynamodb/index.ts';
export { createServices, type ServiceInputs, type Services } from './services/index.ts';
