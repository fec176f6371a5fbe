/** The package's entry point: `import { createNode } from 'node-rpc'`. */
export { createNode } from './node.js';
export type { EIP1193Provider, ForkOptions, ListenOptions, Node, NodeAccount, NodeOptions, ProviderMessage, ProviderRpcError, RequestArguments } from './types.js';
