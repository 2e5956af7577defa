export { type AppDeps, createApp } from './app.ts';
export * from './auth/index.ts';
export { type ChatAreaDeps, createChatApp } from './chat/index.ts';
export { type ContextAreaDeps, createContextApp } from './context/index.ts';
export type { BaseDeps } from './deps.ts';
export * from './errors/index.ts';
export * from './observability/index.ts';
export {
  type BackgroundWork,
  createBackgroundWork,
  createProxyApp,
  type ProxyAreaDeps,
  type ProxySettings,
} from './proxy/index.ts';
