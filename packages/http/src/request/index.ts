export { bodyTooLarge, readBodyBytes, readBodyText } from './body.ts';
export { clientSignalOf, type NodeBindings, nodeBindingsOf, withoutNodeBindings } from './node.ts';
