/**
 * What the package exports (`import { createNode } from 'node-rpc'`), as the tests import it from the
 * compiled tree. The package itself takes createNode from the bundle (src/cli/entry.ts, through
 * dist/index.js and its loader) and its types from src/lib/types.ts.
 */
export { createNode } from './node.js';
export type { EIP1193Provider, ForkOptions, ListenOptions, Node, NodeAccount, NodeOptions, ProviderMessage, ProviderRpcError, RequestArguments } from './types.js';
