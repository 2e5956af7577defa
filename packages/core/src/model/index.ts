/** The OpenAI chat-completion shapes, the one internal data shape for every model path. */
export interface ChatMessage {
  /** `function` is the result of a legacy `function_call` (deprecated by OpenAI for tools, still served). */
  role: 'system' | 'user' | 'assistant' | 'tool' | 'function' | 'developer';
  /** Text, or content parts (text, images, …) passed through as the client sent them; absent or null on an
   *  assistant message that only calls tools. */
  content?: string | ContentPart[] | null;
  name?: string;
  tool_call_id?: string;
  tool_calls?: ToolCall[];
  function_call?: { name: string; arguments: string };
  [key: string]: unknown;
}

/** One part of a message's content (`{ type: "text", text }`, an image, …): kept as sent. */
export interface ContentPart {
  type: string;
  [key: string]: unknown;
}

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Optional parameters may be null, as OpenAI's API allows: null means left out. */
export interface ChatCompletionRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean | null;
  max_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  frequency_penalty?: number | null;
  presence_penalty?: number | null;
  tools?: unknown[] | null;
  [key: string]: unknown;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: { index: number; message: ChatMessage; finish_reason: string | null }[];
  usage?: Usage;
  [key: string]: unknown;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: {
    index: number;
    delta: Partial<ChatMessage>;
    finish_reason: string | null;
  }[];
  usage?: Usage | null;
  [key: string]: unknown;
}

/**
 * A chat-completion backend: an OpenAI-compatible upstream or the embedded extractive responder.
 * `stream` yields raw SSE `data:` payloads (JSON text of chunks, without the `data: ` prefix and without [DONE]),
 * so a proxy can forward them byte-for-byte.
 */
export interface ChatModel {
  readonly id: string;
  complete(request: ChatCompletionRequest, options: { signal?: AbortSignal }): Promise<ChatCompletion>;
  stream(request: ChatCompletionRequest, options: { signal?: AbortSignal }): AsyncIterable<string>;
  /**
   * Optional raw passthrough (OpenAI-compatible upstreams): the upstream's status, content type and body bytes,
   * unchanged, so the proxy can forward them as they arrive. Error statuses are returned, not thrown.
   */
  passthrough?(request: ChatCompletionRequest, options: PassthroughOptions): Promise<RawCompletionResponse>;
  /**
   * Optional raw call to another endpoint of the same OpenAI-compatible API (`responses`, `models`), answered like
   * `passthrough`. A POST body's `model` is replaced like the chat request's.
   */
  relay?(call: RelayCall, options: { signal?: AbortSignal }): Promise<RawCompletionResponse>;
  /** Throws a validation error for a request parameter this model cannot honour (checked before any answer starts). */
  check?(request: ChatCompletionRequest): void;
}

export interface PassthroughOptions {
  signal?: AbortSignal;
  /**
   * `request` as the caller's JSON text, given when the proxy changed nothing in it: sent as written (no
   * re-serialisation) unless the model rewrites the request itself (its upstream model id).
   */
  callerJson?: string;
}

/**
 * A call to an OpenAI-compatible API's endpoint other than chat completions; `callerJson` as in
 * `PassthroughOptions`.
 */
export type RelayCall =
  | { method: 'GET'; path: 'models' | `models/${string}` }
  | { method: 'POST'; path: 'responses'; body: object; callerJson?: string };

/** An upstream answer as bytes: what the proxy forwards without re-serialising. */
export interface RawCompletionResponse {
  status: number;
  contentType: string;
  /** The body's bytes as they arrive; ending the iteration early (`break`) cancels the rest. */
  body: AsyncIterable<Uint8Array>;
  /**
   * The upstream's response headers, names in lower case (the proxy forwards a few: request id, rate limits,
   * retry-after).
   */
  headers?: Readonly<Record<string, string | string[] | undefined>>;
}
