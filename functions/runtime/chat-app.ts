import { createChatServices } from '@memgate/adapters/services/chat';
import { createContextServices } from '@memgate/adapters/services/context';
import { createDefaultModel } from '@memgate/adapters/services/default-model';
import { createEmbedder } from '@memgate/adapters/services/embedder';
import { createChatApp } from '@memgate/http';
import { lambdaApp } from './aws.ts';

/**
 * The chat stream and its replay, behind one streaming function URL. Only the context store and the default model are
 * built, not the proxy's services: the chat decides nothing on tokens (it sets no `max_tokens`, and its usage is an
 * estimate), so its default model gets no exact counter and the function ships no tokenizer table.
 */
export const chatApp = () =>
  lambdaApp((runtime) => {
    const { store } = createContextServices(runtime.inputs, { embedder: createEmbedder(runtime.inputs.config) });
    const chat = createChatServices(runtime.inputs, {
      contextStore: store,
      defaultModel: createDefaultModel(runtime.inputs),
    });
    return createChatApp({ ...runtime.base, ...chat });
  });
