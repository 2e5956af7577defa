import { createContextServices } from '@memgate/adapters/services/context';
import { createEmbedder } from '@memgate/adapters/services/embedder';
import { createProxyServices } from '@memgate/adapters/services/proxy';
import { createProxyApp } from '@memgate/http';
import { lambdaApp } from './aws.ts';

/** Both proxy routes, behind one streaming function URL (the context store feeds its context injection). */
export const proxyApp = () =>
  lambdaApp((runtime) => {
    const embedder = createEmbedder(runtime.inputs.config);
    const { store } = createContextServices(runtime.inputs, { embedder });
    const proxy = createProxyServices(runtime.inputs, { embedder, contextStore: store });
    return createProxyApp({ ...runtime.base, ...proxy, background: runtime.background });
  });
