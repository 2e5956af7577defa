import { streamHandle } from 'hono/aws-lambda';
import { proxyApp } from './runtime/proxy-app.ts';

/**
 * /api/v1/proxy/{proxyUrl}/{target_api_key}/… and /api/v1/proxy/default/… (POST chat/completions, POST responses,
 * GET models): a function URL in RESPONSE_STREAM mode, so upstream SSE chunks reach the client as they arrive.
 */
export const handler = streamHandle(proxyApp());
