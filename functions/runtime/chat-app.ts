import { createServices } from '@memgate/adapters/services/index';
import { createChatApp } from '@memgate/http';
import { lambdaApp } from './aws.ts';

/** The chat stream and its replay, behind one streaming function URL. */
export const chatApp = () =>
  lambdaApp((runtime) => createChatApp({ ...runtime.base, ...createServices(runtime.inputs).chat }));
