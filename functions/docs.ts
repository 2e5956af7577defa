import { handle } from 'hono/aws-lambda';
import { docsApp } from './runtime/docs-app.ts';

/** GET /docs, /docs/scalar.js and /api/v1/openapi.json: API Gateway HTTP API (payload v2) → the API reference. */
export const handler = handle(docsApp());
