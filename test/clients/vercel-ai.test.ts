import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startClientMatrixServer, WEATHER_CALL } from './server.ts';

// The Vercel AI SDK, configured as its users do: only baseURL and apiKey change.
const server = await startClientMatrixServer();
afterAll(() => server.close());
beforeEach(() => {
  server.stub.setBehavior({});
  server.stub.requests.length = 0;
});

const memgate = createOpenAI({ baseURL: server.defaultBaseUrl, apiKey: server.token });
const QUESTION = 'Who issues parking permits?';
const ANSWER = 'Parking permits are issued by the front desk on level 2.';

describe('ai + @ai-sdk/openai', () => {
  it('the default provider (Responses API) answers from stored context, with usage', async () => {
    const result = await generateText({ model: memgate('memgate/default'), prompt: QUESTION, maxRetries: 0 });
    expect(result.text).toBe(ANSWER);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
  });

  it('the default provider streams from stored context, with usage', async () => {
    const result = streamText({ model: memgate('memgate/default'), prompt: QUESTION, maxRetries: 0 });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe(ANSWER);
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });

  it('a second turn with the first answer in the history works with store: false, as the README says', async () => {
    const first = await generateText({ model: memgate('memgate/default'), prompt: QUESTION, maxRetries: 0 });
    const second = await generateText({
      model: memgate('memgate/default'),
      messages: [
        { role: 'user', content: QUESTION },
        ...first.response.messages,
        { role: 'user', content: 'When does the Lisbon office open?' },
      ],
      providerOptions: { openai: { store: false } },
      maxRetries: 0,
    });
    expect(second.text).toBe('The Lisbon office opens at 8:30 on weekdays.');
    // Without it the SDK refers to the first answer by id, which a stateless route cannot resolve: a clear 400.
    const refused = await generateText({
      model: memgate('memgate/default'),
      messages: [{ role: 'user', content: QUESTION }, ...first.response.messages, { role: 'user', content: 'And?' }],
      maxRetries: 0,
    }).catch((error: unknown) => error as { statusCode?: number; message?: string });
    expect(refused).toMatchObject({ statusCode: 400, message: expect.stringContaining('store = false') });
  });

  it('.chat() (chat completions) answers from stored context, with usage', async () => {
    const result = await generateText({
      model: memgate.chat('memgate/default'),
      system: 'Answer from the handbook.',
      prompt: QUESTION,
      maxRetries: 0,
    });
    expect(result.text).toBe(ANSWER);
    expect(result.usage.totalTokens).toBeGreaterThan(0);
  });
});

describe('ai + @ai-sdk/openai-compatible', () => {
  it('streamText with a tool: the call arrives whole (name and parsed input), with usage', async () => {
    server.stub.setBehavior({ toolCall: WEATHER_CALL });
    const provider = createOpenAICompatible({
      name: 'memgate',
      baseURL: server.targetBaseUrl,
      apiKey: server.token,
      includeUsage: true,
    });
    const result = streamText({
      model: provider('gpt-x'),
      prompt: 'What is the weather in Lisbon?',
      tools: {
        get_weather: tool({
          description: 'The weather of a city',
          inputSchema: jsonSchema<{ city: string }>({
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
          }),
        }),
      },
      maxRetries: 0,
    });
    const calls = await result.toolCalls;
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ toolName: 'get_weather', input: { city: 'Lisbon' } });
    expect((await result.usage).totalTokens).toBeGreaterThan(0);
    expect(server.stub.requests[0]?.body).toMatchObject({ tools: [{ function: { name: 'get_weather' } }] });
  });
});
