import { handle } from 'hono/aws-lambda';
import { mcpApp } from './runtime/mcp-app.ts';

/**
 * POST /mcp: the MCP memory tools behind their own function URL. Every answer is one JSON body (the server never
 * streams), so the URL runs in the default buffered mode.
 */
export const handler = handle(mcpApp());
