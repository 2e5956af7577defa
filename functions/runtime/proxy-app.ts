import { createServices } from '@memgate/adapters/services/index';
import { createProxyApp } from '@memgate/http';
import { lambdaApp } from './aws.ts';

/** Both proxy routes, behind one streaming function URL. */
export const proxyApp = () =>
  lambdaApp((runtime) => createProxyApp({ ...runtime.base, ...createServices(runtime.inputs).proxy }));
