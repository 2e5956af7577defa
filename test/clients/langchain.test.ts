import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startClientMatrixServer, WEATHER_CALL } from './server.ts';

// LangChain's ChatOpenAI, configured as its users do: only configuration.baseURL and apiKey change.
const server = await startClientMatrixServer();
afterAll(() => server.close());
beforeEach(() => server.stub.setBehavior({}));

const QUESTION = 'When are expense reports due?';
const ANSWER = 'Expense reports are due on the fifth working day of each month.';
const chat = (baseURL: string, model: string) =>
  new ChatOpenAI({ model, apiKey: server.token, configuration: { baseURL }, maxRetries: 0 });

describe('@langchain/openai ChatOpenAI', () => {
  it('invoke answers from stored context, with usage', async () => {
    const message = await chat(server.defaultBaseUrl, 'memgate/default').invoke(QUESTION);
    expect(message.content).toBe(ANSWER);
    expect(message.usage_metadata?.output_tokens).toBeGreaterThan(0);
  });

  it('stream delivers the answer from stored context in chunks, with usage', async () => {
    const stream = await chat(server.defaultBaseUrl, 'memgate/default').stream(QUESTION);
    let text = '';
    let outputTokens = 0;
    for await (const chunk of stream) {
      text += typeof chunk.content === 'string' ? chunk.content : '';
      outputTokens += chunk.usage_metadata?.output_tokens ?? 0;
    }
    expect(text).toBe(ANSWER);
    expect(outputTokens).toBeGreaterThan(0);
  });

  it('bindTools: the tool call arrives whole, with parsed arguments, invoked and streamed', async () => {
    server.stub.setBehavior({ toolCall: WEATHER_CALL });
    const weather = {
      type: 'function' as const,
      function: {
        name: 'get_weather',
        description: 'The weather of a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    };
    const model = chat(server.targetBaseUrl, 'gpt-x').bindTools([weather]);
    const message = await model.invoke('What is the weather in Lisbon?');
    expect(message.tool_calls).toEqual([
      { name: 'get_weather', args: { city: 'Lisbon' }, id: 'call_weather_1', type: 'tool_call' },
    ]);
    let gathered: Awaited<ReturnType<typeof model.invoke>> | undefined;
    for await (const chunk of await model.stream('What is the weather in Lisbon?')) {
      gathered = gathered ? gathered.concat(chunk) : chunk;
    }
    expect(gathered?.tool_calls).toMatchObject([{ name: 'get_weather', args: { city: 'Lisbon' } }]);
  });
});
