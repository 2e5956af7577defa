import { awsRuntime } from './runtime/aws.ts';
import { proxyApp } from './runtime/proxy-app.ts';
import { streamingHandler } from './runtime/streaming.ts';

/**
 * /api/v1/proxy/{proxyUrl}/{target_api_key}/… and /api/v1/proxy/default/… (POST chat/completions, POST responses,
 * GET models): a function URL in RESPONSE_STREAM mode, so upstream SSE chunks reach the client as they arrive. The
 * invocation ends only once the exchange it captured is stored.
 */
export const handler = streamingHandler(proxyApp(), awsRuntime().background);
