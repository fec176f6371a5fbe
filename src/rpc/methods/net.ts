/** net_* methods: a dev node is alone on its network. */
import type { ChainReads } from '../../chain/api.js';
import { method, type MethodDef } from '../registry.js';

export function netMethods(node: ChainReads): MethodDef[] {
  return [
    /** Network id, as a decimal string (the chain id). */
    method('net_version', [], () => node.config.chainId.toString()),
    method('net_listening', [], () => true),
    method('net_peerCount', [], () => '0x0'),
  ];
}
