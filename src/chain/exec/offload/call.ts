/** eth_call through a call worker: the node resolves, the worker runs, the answer maps back. */
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { ChainConfig } from '../../core/config.js';
import { ChainError } from '../../core/errors.js';
import type { Lock } from '../../core/lock.js';
import { isPending, type BlockRef, type StoredBlock, type TxRequest } from '../../core/types.js';
import type { CallBounds } from '../bounds.js';
import { ZERO_ADDRESS, executionError } from '../call.js';
import { leanIntrinsicGas } from '../lean.js';
import type { ChainRules } from '../../engine/common.js';
import { headerOf } from './header.js';
import type { CallWorkers } from './pool.js';
import { callKey } from './routing.js';

/** What the node answers for a call on a worker. */
export interface CallHost {
  readonly common: Common;
  /** The chain's rules, fork by fork (a call runs its block's). */
  readonly rules: ChainRules;
  readonly config: Pick<ChainConfig, 'chainId' | 'hardfork' | 'codeSizeLimit'>;
  readonly callBounds: CallBounds;
  readonly store: { readonly head: StoredBlock };
  readonly lock: Lock;
  readonly state: { getStateRoot(): Promise<Uint8Array> };
  readonly pool: { readonly size: number };
  readonly pending: { header(parent: StoredBlock): Block };
  requireBlock(ref: BlockRef): StoredBlock;
  stateRootOf(at: StoredBlock): Uint8Array;
  capped(req: TxRequest, block: Block): TxRequest;
  callBlock(block: Block, req: TxRequest): Block;
}

/** Where a call at `ref` runs: the stored block whose state it reads, and the block it runs in (for `pending`: the head, and the pending block). */
function callSite(host: CallHost, ref: BlockRef): { at: StoredBlock; block: Block } {
  if (!isPending(ref)) {
    const at = host.requireBlock(ref);
    return { at, block: at.block };
  }
  const at = host.store.head;
  return { at, block: host.pending.header(at) };
}

/**
 * The state root and block a call at `ref` runs on: at the head the live root (edits since it
 * was mined included) and, for `pending`, the pending block as it is once the requests before
 * this one ran; undefined when the node must run the call itself (the head moved, or
 * transactions wait in the pool to be part of the pending state).
 */
async function callState(host: CallHost, ref: BlockRef): Promise<{ root: Uint8Array; block: Block } | undefined> {
  const { at, block } = callSite(host, ref);
  if (at !== host.store.head) return { root: host.stateRootOf(at), block };
  return host.lock.read(async () => {
    if (at !== host.store.head || (isPending(ref) && host.pool.size > 0)) return undefined;
    return { root: await host.state.getStateRoot(), block: isPending(ref) ? host.pending.header(at) : block };
  });
}

/**
 * eth_call of a plain call on a worker, at the state root the node resolves for `ref`; undefined
 * when the call is not one a worker takes, no worker is ready, or the worker handed it back.
 */
export async function callOnWorker(host: CallHost, workers: CallWorkers, req: TxRequest, ref: BlockRef): Promise<Uint8Array | undefined> {
  const site = callSite(host, ref);
  const first = host.capped(req, site.block);
  if (first.to === undefined || leanIntrinsicGas(site.block.common, { ...first, gas: first.gas ?? site.block.header.gasLimit }) === undefined || !workers.available()) return undefined;
  const resolved = await callState(host, ref);
  if (resolved === undefined) return undefined;
  const { root, block } = resolved;
  const capped = host.capped(req, block);
  const gas = capped.gas ?? block.header.gasLimit;
  if (capped.to === undefined || leanIntrinsicGas(block.common, { ...capped, gas }) === undefined) return undefined;
  const fork = host.rules.forkAt(block.header.number, block.header.timestamp);
  const { id: headerId, bytes: header } = headerOf(host.callBlock(block, req));
  const reply = await workers.run({
    chainId: host.config.chainId,
    hardfork: fork,
    blobs: host.rules.schedule.blobSchedule?.[fork],
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

/**
 * eth_call where the workers' routing says: on a worker when others are in progress or this code ran long
 * before, otherwise (or when no worker takes it) through `here`, on this thread.
 */
export async function routedCall(
  host: CallHost,
  workers: CallWorkers,
  req: TxRequest,
  ref: BlockRef,
  here: () => Promise<Uint8Array>,
): Promise<Uint8Array> {
  const key = callKey(req.to?.bytes, req.data);
  let mainMs: number | undefined;
  let workerMs: number | undefined;
  try {
    if (await workers.routing.enter(key)) {
      const sent = performance.now();
      let out: Uint8Array | undefined;
      try {
        out = await callOnWorker(host, workers, req, ref);
      } finally {
        workerMs = performance.now() - sent;
      }
      if (out !== undefined) return out;
    }
    const started = performance.now();
    try {
      return await here();
    } finally {
      mainMs = performance.now() - started;
    }
  } finally {
    workers.routing.leave(key, mainMs, workerMs);
  }
}
