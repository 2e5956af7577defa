import { WEB_CLASSES_GLOBAL } from './global-name.ts';
import { LiteHeaders } from './headers.ts';
import { LiteFormData, LiteRequest, LiteResponse } from './index.ts';

/**
 * Where the Lambda bundles' code finds its Headers, Request, Response and FormData: scripts/build.ts rewrites those
 * global names to properties of this object (esbuild's `define`, in the bundled code only; Node's own globals stay
 * as they are) and imports this module first in every function, before any of its code runs.
 */
(globalThis as Record<string, unknown>)[WEB_CLASSES_GLOBAL] = {
  Headers: LiteHeaders,
  Request: LiteRequest,
  Response: LiteResponse,
  FormData: LiteFormData,
};
