/** Messages between the node and its call workers (structured-clone data only). */
import type { BlobParams, SupportedHardfork } from '../../core/config.js';
import type { StoreWrites } from './replica.js';

export interface WorkerInit {
  nodes: StoreWrites;
  /** The rules to build the engine with ahead of the first call. */
  chainId: bigint;
  hardfork: SupportedHardfork;
  /** The chain's code size limit (ChainConfig.codeSizeLimit). */
  codeSizeLimit?: number;
}

/** One eth_call, fully resolved by the node: the state root, the block it runs in, the capped request. */
export interface CallJob {
  id: number;
  chainId: bigint;
  hardfork: SupportedHardfork;
  /** The fork's blob parameters where a schedule gives its own. */
  blobs?: BlobParams;
  codeSizeLimit?: number;
  root: Uint8Array;
  /** The call block's header (RLP), with an id the worker caches it under. */
  headerId: number;
  header: Uint8Array;
  to: Uint8Array;
  from: Uint8Array;
  data: Uint8Array;
  gas: bigint;
  timeoutMs: number;
}

export type ToWorker = { kind: 'nodes'; nodes: StoreWrites } | ({ kind: 'call' } & CallJob);

/**
 * A call's outcome: its return data; an EVM failure (revert, out of gas, …) with the return data;
 * an error to answer as is (the timeout); or `fallback`, when the worker cannot run it the way the
 * node would (BLOCKHASH, a root it lacks, anything unexpected) and the node runs it itself.
 */
export type CallReply =
  | { id: number; kind: 'ok'; data: Uint8Array }
  | { id: number; kind: 'failed'; error: string; data: Uint8Array }
  | { id: number; kind: 'error'; message: string; code?: number }
  | { id: number; kind: 'fallback'; reason: string };

/** What a worker sends: `ready` once its engine is built, then one reply per call. */
export type FromWorker = CallReply | { kind: 'ready' };
