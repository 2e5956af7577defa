export * from './auth/index.ts';
export * from './cleanup/index.ts';
export type { Clock } from './clock.ts';
export { systemClock } from './clock.ts';
export * from './context/ports.ts';
export * from './context/record.ts';
export * from './context/service.ts';
export * from './errors/index.ts';
export * from './model/index.ts';
