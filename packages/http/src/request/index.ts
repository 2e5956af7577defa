export { bodyTooLarge, readBodyBytes, readBodyText } from './body.ts';
export { clientSignalOf, type NodeBindings, nodeBindingsOf, requestHeader, withoutNodeBindings } from './node.ts';
