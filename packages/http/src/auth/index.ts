export { type AuthEnv, type AuthOptions, authenticate } from './middleware.ts';
export { createTokenVerifier, isUsableUserId, type TokenVerifier, type VerifierOptions } from './verifier.ts';
