import { serveAdd } from '@memgate/http/context/add';
import { handle } from 'hono/aws-lambda';
import { contextApp } from './runtime/context-app.ts';

/** POST /api/v1/context/add: API Gateway HTTP API (payload v2) → the context area's app. */
export const handler = handle(contextApp(serveAdd));
