import { createContextServices } from '@memgate/adapters/services/context';
import { createEmbedder } from '@memgate/adapters/services/embedder';
import { createMcpApp } from '@memgate/http/mcp/index';
import { lambdaApp } from './aws.ts';

/** The MCP memory tools: the context store's services only, as in the context functions. */
export const mcpApp = () =>
  lambdaApp((runtime) => {
    const { store } = createContextServices(runtime.inputs, { embedder: createEmbedder(runtime.inputs.config) });
    return createMcpApp({ ...runtime.base, store });
  });
