import { createContextServices } from '@memgate/adapters/services/context';
import { createEmbedder } from '@memgate/adapters/services/embedder';
import { createContextApp } from '@memgate/http';
import { lambdaApp } from './aws.ts';

/**
 * The context store's routes; every /api/v1/context/* function serves the one API Gateway routes to it. Only the
 * context services are built, so the proxy's upstream client and tokenizer stay out of these bundles.
 */
export const contextApp = () =>
  lambdaApp((runtime) => {
    const { store } = createContextServices(runtime.inputs, { embedder: createEmbedder(runtime.inputs.config) });
    return createContextApp({ ...runtime.base, store });
  });
