import { type ChatCompletionRequest, type ChatMessage, invalid } from '@memgate/core';
import { inputToMessages } from './input.ts';
import type { ResponsesRequest } from './schema.ts';

type Loose = Record<string, unknown>;

/** Responses function tools are flat (`{type, name, parameters}`); chat nests them under `function`. */
function chatTools(tools: ResponsesRequest['tools']): unknown[] | undefined {
  return tools?.map((tool, index) => {
    if (tool.type !== 'function') {
      throw invalid(
        `tool type "${tool.type}" is a hosted OpenAI tool; the default route serves function tools only`,
        `tools[${index}].type`,
      );
    }
    if (typeof tool.name !== 'string' || tool.name === '')
      throw invalid('a function tool needs a name', `tools[${index}].name`);
    const { name, description, parameters, strict } = tool as Loose;
    return {
      type: 'function',
      function: {
        name,
        ...(description ? { description } : {}),
        parameters: parameters ?? { type: 'object', properties: {} },
        ...(typeof strict === 'boolean' ? { strict } : {}),
      },
    };
  });
}

function chatToolChoice(choice: ResponsesRequest['tool_choice']): unknown {
  if (choice === undefined || typeof choice === 'string') return choice;
  if (choice.type === 'function' && typeof choice.name === 'string') {
    return { type: 'function', function: { name: choice.name } };
  }
  throw invalid(`tool_choice of type "${choice.type}" is not supported on the default route`, 'tool_choice.type');
}

/** `text.format` → chat's `response_format` (json_schema's fields move under `json_schema`). */
function chatResponseFormat(text: ResponsesRequest['text']): unknown {
  const format = text?.format;
  if (!format || format.type === 'text' || format.type === 'json_object') return format;
  if (format.type === 'json_schema') {
    const { type: _type, ...schema } = format;
    return { type: 'json_schema', json_schema: schema };
  }
  throw invalid(`text.format of type "${format.type}" is not supported`, 'text.format.type');
}

/** Stateful features need stored responses; route B stores none (DESIGN.md section 4). */
function refuseStateful(request: ResponsesRequest): void {
  if (request.previous_response_id) {
    throw invalid(
      'the default route is stateless: previous_response_id is not supported; send the whole conversation in input',
      'previous_response_id',
    );
  }
  for (const field of ['conversation', 'prompt'] as const) {
    if ((request as Loose)[field] != null)
      throw invalid(`${field} needs stored state; the default route is stateless`, field);
  }
  if ((request as Loose).background === true)
    throw invalid('background responses are not supported on the default route', 'background');
}

/**
 * Route B: the Responses request as a chat-completions request for the default model. `instructions` lead as a system
 * message; usage is always asked for when streaming, so `response.completed` carries it.
 */
export function toChatRequest(request: ResponsesRequest): ChatCompletionRequest {
  refuseStateful(request);
  const { messages } = inputToMessages(request.input, true);
  const instructions: ChatMessage[] = request.instructions ? [{ role: 'system', content: request.instructions }] : [];
  const chat: ChatCompletionRequest = { model: request.model, messages: [...instructions, ...messages] };
  const optional: Loose = {
    tools: chatTools(request.tools),
    tool_choice: chatToolChoice(request.tool_choice),
    response_format: chatResponseFormat(request.text),
    // The current name; max_tokens is deprecated and refused by reasoning models.
    max_completion_tokens: request.max_output_tokens,
    temperature: request.temperature,
    top_p: request.top_p,
    parallel_tool_calls: request.parallel_tool_calls,
    reasoning_effort: ((request as Loose).reasoning as Loose | undefined)?.effort,
    user: (request as Loose).safety_identifier ?? (request as Loose).user,
  };
  for (const [key, value] of Object.entries(optional)) if (value != null) chat[key] = value;
  if (request.stream) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  return chat;
}

/** Route B: where a chat parameter came from, so a refusal names the field the caller sent. */
export const RESPONSES_FIELD_OF: Record<string, string> = {
  response_format: 'text.format',
  max_completion_tokens: 'max_output_tokens',
  tool_choice: 'tool_choice',
};
