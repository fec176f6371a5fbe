/** Node information and settings: anvil_nodeInfo, anvil_metadata, logging, the chain id. */
import type { Admin, ChainReads, Fees } from '../../chain/api.js';
import { ANVIL_NAMES } from '../../chain/core/config.js';
import { addr, qty } from '../../format/hex.js';
import { bool } from '../codecs.js';
import { invalidParams } from '../errors.js';
import { method, type MethodDef } from '../registry.js';
import { count } from './devParams.js';

/** `client` is the whole web3_clientVersion answer. */
export function adminMethods(node: ChainReads & Fees & Admin, client: string): MethodDef[] {
  return [
    method('anvil_setChainId', [count], async (id) => {
      if (id < 1n || id > BigInt(Number.MAX_SAFE_INTEGER)) throw invalidParams('invalid argument 0: chain id out of range');
      await node.setChainId(id);
      return null;
    }),
    /** Request and block logging of the CLI. */
    method('anvil_setLoggingEnabled', [bool], (on) => {
      node.controls.setLogging(on);
      return null;
    }, { aliases: ['hardhat_setLoggingEnabled'] }),
    method('anvil_nodeInfo', [], () => {
      const head = node.head;
      const h = head.block.header;
      return {
        currentBlockNumber: qty(head.number),
        currentBlockTimestamp: Number(h.timestamp),
        currentBlockHash: head.hashHex,
        hardFork: ANVIL_NAMES[node.hardfork],
        transactionOrder: node.mining.order,
        environment: {
          baseFee: qty(node.nextBaseFee()),
          chainId: Number(node.config.chainId),
          gasLimit: qty(node.blockGasLimit),
          gasPrice: qty(node.gasPrice()),
        },
        forkConfig: { forkUrl: null, forkBlockNumber: null, forkRetryBackoff: null },
      };
    }),
    /** Client, chain and snapshot facts (hardhat_metadata's shape, plus anvil's snapshots). */
    method('anvil_metadata', [], async () => {
      const snapshots: Record<string, [number, string]> = {};
      for (const id of node.history.snapshotIds()) {
        const n = await node.history.snapshotBlock(id);
        const b = n === undefined ? undefined : node.block({ kind: 'number', number: n });
        if (b) snapshots[qty(id)] = [Number(b.number), b.hashHex];
      }
      const head = node.head;
      return {
        clientVersion: client,
        chainId: Number(node.config.chainId),
        instanceId: node.instanceId,
        latestBlockNumber: Number(head.number),
        latestBlockHash: head.hashHex,
        forkedNetwork: null,
        snapshots,
        coinbase: addr(node.coinbase),
      };
    }, { aliases: ['hardhat_metadata'] }),
  ];
}
