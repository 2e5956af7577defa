import { createContextServices } from '@memgate/adapters/services/context';
import { createEmbedder } from '@memgate/adapters/services/embedder';
import { createContextRoutesApp } from '@memgate/http/context/app';
import type { ServeContextRoute } from '@memgate/http/context/common';
import { lambdaApp } from './aws.ts';

/**
 * The context store's route that API Gateway sends this function, and only that one: each route's module carries its
 * own schemas, so a function builds none of the other four routes' (~10 ms of a cold start). Only the context services
 * are built, so the proxy's upstream client and tokenizer stay out of these bundles.
 */
export const contextApp = (route: ServeContextRoute) =>
  lambdaApp((runtime) => {
    const { store } = createContextServices(runtime.inputs, { embedder: createEmbedder(runtime.inputs.config) });
    return createContextRoutesApp({ ...runtime.base, store }, [route]);
  });
