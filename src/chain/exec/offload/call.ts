/** eth_call through a call worker: the node resolves, the worker runs, the answer maps back. */
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { ChainConfig } from '../../config.js';
import { ChainError } from '../../errors.js';
import type { BlockRef, StoredBlock, TxRequest } from '../../types.js';
import type { CallBounds } from '../bounds.js';
import { ZERO_ADDRESS, executionError } from '../call.js';
import { leanIntrinsicGas } from '../lean.js';
import { headerOf } from './header.js';
import type { CallWorkers } from './pool.js';

/** What the node answers for a call on a worker. */
export interface CallHost {
  readonly common: Common;
  readonly config: Pick<ChainConfig, 'chainId' | 'hardfork' | 'codeSizeLimit'>;
  readonly callBounds: CallBounds;
  requireBlock(ref: BlockRef): StoredBlock;
  capped(req: TxRequest, block: Block): TxRequest;
  callBlock(block: Block, req: TxRequest): Block;
  callRoot(at: StoredBlock): Promise<Uint8Array | undefined>;
}

/**
 * eth_call of a plain call on a worker, at the state root the node resolves for `ref`; undefined
 * when the call is not one a worker takes, no worker is ready, or the worker handed it back.
 */
export async function callOnWorker(host: CallHost, workers: CallWorkers, req: TxRequest, ref: BlockRef): Promise<Uint8Array | undefined> {
  const at = host.requireBlock(ref);
  const capped = host.capped(req, at.block);
  const gas = capped.gas ?? at.block.header.gasLimit;
  if (capped.to === undefined || leanIntrinsicGas(host.common, { ...capped, gas }) === undefined || !workers.available()) return undefined;
  const root = await host.callRoot(at);
  if (root === undefined) return undefined;
  const { id: headerId, bytes: header } = headerOf(host.callBlock(at.block, req));
  const reply = await workers.run({
    chainId: host.config.chainId,
    hardfork: host.config.hardfork,
    codeSizeLimit: host.config.codeSizeLimit,
    root,
    headerId,
    header,
    to: capped.to.bytes,
    from: (capped.from ?? ZERO_ADDRESS).bytes,
    data: capped.data ?? new Uint8Array(),
    gas,
    timeoutMs: host.callBounds.timeoutMs,
  });
  switch (reply?.kind) {
    case 'ok':
      return reply.data;
    case 'failed':
      throw executionError(reply.error, reply.data);
    case 'error':
      throw new ChainError(reply.message, undefined, reply.code);
    default:
      return undefined;
  }
}
