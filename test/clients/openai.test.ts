import OpenAI from 'openai';
import { VERSION } from 'openai/version';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startClientMatrixServer, WEATHER_CALL } from './server.ts';

// The official OpenAI SDK, configured as its users do: only baseURL and apiKey change.
const server = await startClientMatrixServer();
afterAll(() => server.close());
beforeEach(() => server.stub.setBehavior({}));

const memgate = new OpenAI({ baseURL: server.defaultBaseUrl, apiKey: server.token, maxRetries: 0 });
const throughMemgate = new OpenAI({ baseURL: server.targetBaseUrl, apiKey: server.token, maxRetries: 0 });
const QUESTION = 'When does the Lisbon office open?';
const ANSWER = 'The Lisbon office opens at 8:30 on weekdays.';

describe(`openai ${VERSION}`, () => {
  it('chat.completions.create answers from stored context, with usage', async () => {
    const completion = await memgate.chat.completions.create({
      model: 'memgate/default',
      messages: [{ role: 'user', content: QUESTION }],
    });
    expect(completion.choices[0]?.message.content).toBe(ANSWER);
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('chat.completions.create with stream: true streams the answer and usage', async () => {
    const stream = await memgate.chat.completions.create({
      model: 'memgate/default',
      messages: [{ role: 'user', content: QUESTION }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(ANSWER);
    expect(usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('responses.create answers from stored context, with usage', async () => {
    const response = await memgate.responses.create({ model: 'memgate/default', input: QUESTION });
    expect(response.output_text).toBe(ANSWER);
    expect(response.usage?.output_tokens).toBeGreaterThan(0);
  });

  it('responses.stream delivers text deltas and the final response with usage', async () => {
    const stream = memgate.responses.stream({
      model: 'memgate/default',
      input: [{ role: 'user', content: QUESTION }],
    });
    let text = '';
    stream.on('response.output_text.delta', (event) => {
      text += event.delta;
    });
    const final = await stream.finalResponse();
    expect(text).toBe(ANSWER);
    const message = final.output.find((item) => item.type === 'message');
    expect(message?.type === 'message' && message.content[0]).toMatchObject({ type: 'output_text', text: ANSWER });
    expect(final.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('models.list shows the default model', async () => {
    const ids: string[] = [];
    for await (const model of memgate.models.list()) ids.push(model.id);
    expect(ids).toEqual(['memgate/default']);
  });

  it('a tool call through a target arrives whole, streamed and not', async () => {
    server.stub.setBehavior({ toolCall: WEATHER_CALL });
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
      },
    ];
    const messages = [{ role: 'user' as const, content: 'Weather in Lisbon?' }];
    const completion = await throughMemgate.chat.completions.create({ model: 'gpt-x', messages, tools });
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.name).toBe('get_weather');
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Lisbon' });

    const runner = throughMemgate.chat.completions.stream({ model: 'gpt-x', messages, tools });
    const streamed = (await runner.finalChatCompletion()).choices[0]?.message.tool_calls?.[0];
    expect(streamed?.type === 'function' && streamed.function.name).toBe('get_weather');
    expect(streamed?.type === 'function' && JSON.parse(streamed.function.arguments)).toEqual({ city: 'Lisbon' });
  });
});
