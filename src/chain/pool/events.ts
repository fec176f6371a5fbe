/**
 * What the chain tells those who follow it (the log index, polling filters, subscriptions): its
 * events and its blocks. They depend on this, not on the node, so nothing below the node imports
 * it back.
 */
import type { EventEmitter } from 'node:events';
import type { PendingTx } from './txpool.js';
import type { BlockStore } from '../head/store.js';
import type { BlockRef, MinedTx, StoredBlock } from '../core/types.js';

export interface NodeEvents {
  /** A block was added to the chain. */
  block: [StoredBlock];
  /** A transaction entered the pool. */
  pendingTx: [PendingTx];
  /** A transaction left the pool without being mined (replaced, dropped, failed). */
  dropped: [PendingTx, string];
  /** Blocks were removed from the chain (snapshot revert, reset), oldest first. */
  reorg: [StoredBlock[]];
  /**
   * Empty blocks first..last joined the chain as a run built on demand (anvil_mine / hardhat_mine
   * of many blocks; no `block` event each): `store.byNumber` builds them, they hold no
   * transactions or logs, and `reorg` lists only real blocks.
   */
  emptyBlocks: [first: bigint, last: bigint];
  /** console.log lines a mined transaction printed (emitted before its block's `block` event). */
  console: [MinedTx, string[]];
  /** A background task (interval mining) failed. */
  error: [Error];
}

/** The chain as its followers see it. */
export interface ChainFeed {
  readonly events: EventEmitter<NodeEvents>;
  readonly store: BlockStore;
  /** A block by number, tag or hash (undefined when there is none). */
  block(ref: BlockRef): StoredBlock | undefined;
}
