import { serveView } from '@memgate/http/context/view';
import { handle } from 'hono/aws-lambda';
import { contextApp } from './runtime/context-app.ts';

/** GET /api/v1/context/view: API Gateway HTTP API (payload v2) → the context area's app. */
export const handler = handle(contextApp(serveView));
