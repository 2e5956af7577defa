import { chatApp } from './runtime/chat-app.ts';
import { streamingHandler } from './runtime/streaming.ts';

/**
 * POST /api/v1/chat/generate/stream and GET /api/v1/chat/replay/{replaySessionID}: a function URL in
 * RESPONSE_STREAM mode (API Gateway HTTP APIs buffer responses, so SSE could not flow through them).
 */
export const handler = streamingHandler(chatApp());
