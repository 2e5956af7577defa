import type { ContextStore, Principal } from '@memgate/core';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { logFailure, publicMessage, statusOf, toMemgateError } from '../errors/index.ts';
import type { Logger } from '../observability/logger.ts';
import { MEMORY_TOOLS, type MemoryTool } from './tools.ts';

const SERVER_INFO = { name: 'memgate', title: 'memgate memory', version: '0.1.0' };

const INSTRUCTIONS =
  'Long-term memory. Call search_memory before answering questions that may depend on what the user told you ' +
  'before; call add_memory to keep facts, preferences and decisions worth remembering; delete_memory forgets.';

const TOOLS_BY_NAME = new Map<string, MemoryTool>(MEMORY_TOOLS.map((tool) => [tool.name, tool]));

/**
 * The server validates JSON Schemas only for elicitation, which memgate never asks for. Its default validator
 * builds an Ajv instance with every format in its constructor, and a stateless server is built per request.
 */
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'memgate never elicits input' }),
};

function resultOf(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/** A refused or invalid call: the message the HTTP API would give for the same refusal, as a tool error. */
function errorResultOf(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

/**
 * One MCP server for one caller: `principal` comes from the verified bearer token, never from a tool argument,
 * and every tool goes through the context store's use cases, which enforce tenancy and limits.
 */
export function createMemoryServer({
  store,
  principal,
  logger,
}: {
  store: ContextStore;
  principal: Principal;
  logger: Logger;
}): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: NO_ELICITATION,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: MEMORY_TOOLS.map((tool) => tool.definition) }));
  server.setRequestHandler(CallToolRequestSchema, async function callMemoryTool(request) {
    const { name, arguments: args = {} } = request.params;
    const tool = TOOLS_BY_NAME.get(name);
    if (!tool) throw protocolError(ErrorCode.InvalidParams, `unknown tool '${name.slice(0, 64)}'`);
    const started = performance.now();
    try {
      const result = resultOf(await tool.call(store, principal, args));
      logger.info('mcp tool call', { tool: name, outcome: 'ok', latencyMs: elapsed(started) });
      return result;
    } catch (thrown) {
      const error = toMemgateError(thrown);
      if (statusOf(error) >= 500) logFailure(logger, thrown, error, 'mcp tool call failed');
      logger.info('mcp tool call', { tool: name, outcome: error.code, latencyMs: elapsed(started) });
      return errorResultOf(publicMessage(error));
    }
  });
  return server;
}

const elapsed = (started: number) => Math.round((performance.now() - started) * 100) / 100;

/**
 * A JSON-RPC error the SDK sends with this message as it is. McpError writes 'MCP error <code>: ' into its message,
 * which the SDK's client prefixes again: clients showed 'MCP error -32602: MCP error -32602: unknown tool …'.
 */
function protocolError(code: ErrorCode, message: string): Error {
  return Object.assign(new Error(message), { code });
}
