export { checkBodyLimit, limitBody, MAX_BODY_BYTES, MAX_JSON_DEPTH, readJsonObject, readJsonText } from './body.ts';
export { type Area, areaOfPath, errorEnvelope, publicMessage, statusOf, toMemgateError } from './envelopes.ts';
export { areaErrorHandler, logFailure, notFoundHandler, pathErrorHandler, respondWithError } from './handler.ts';
export { jsonBody, type PrepareBody } from './json-body.ts';
export { tooDeepFieldOf } from './json-depth.ts';
export { parseJsonInSlices } from './json-slices.ts';
export { methodNotAllowed, methodsServed, refuseOtherMethods } from './methods.ts';
export { validateInSlices } from './sliced-list.ts';
export { fromZodError, rejectInvalid, throwOnInvalid, type ValidationResult } from './zod.ts';
