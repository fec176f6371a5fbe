/**
 * The head and its history: the block store, the live state's root, and the marks into the trie's
 * node store and key preimages that let a revert give back what was written since a snapshot.
 * It alone moves the head backwards (revert, anvil_rollback, anvil_reorg, anvil_reset); blocks are
 * added by mining and state loads through the store.
 */
import { randomBytes } from 'node:crypto';
import { KECCAK256_RLP, bytesToHex } from '@ethereumjs/util';
import type { Owner } from '../core/owner.js';
import type { StoredBlock } from '../core/types.js';
import type { BlockStore } from './store.js';

/** The live state as the head sees it: a root to read and set. */
export interface HeadState {
  getStateRoot(): Promise<Uint8Array>;
  setStateRoot(root: Uint8Array): Promise<void>;
  /** The store under the state was rewound or cleared: caches over it are stale. */
  storeRewound(): void;
}

/** A store snapshots mark and reverts rewind (the trie's node store, the preimages). */
export interface MarkedStore<M> {
  mark(): M;
  rewind(mark: M): unknown;
  clear(): void;
  /** No snapshot is left: stop journaling changes. */
  endJournal(): void;
}

export interface HeadRecord<N, P> {
  blockNumber: bigint;
  /** The live state root (edits made after the head block included). */
  stateRoot: Uint8Array;
  /** Where the node store and the preimages stood when the root was taken. */
  nodes: N;
  preimages: P;
  /** `Head.rollbacks` then. */
  rollbacks: number;
}

export class Head<N = unknown, P = unknown> implements Owner<HeadRecord<N, P>> {
  readonly name = 'head';
  /** Rollbacks (anvil_rollback, anvil_reorg) that dropped blocks so far. */
  private rollbacks = 0;
  /** Blocks a reset dropped, announced once the new genesis is written (`announceReset`). */
  private resetDropped: StoredBlock[] = [];
  /** Random id of this chain (anvil_metadata); a reset starts a new chain and a new id. */
  private id = newInstanceId();

  /** `reorg` hears of blocks dropped from the chain, oldest first. */
  constructor(
    readonly store: BlockStore,
    private readonly state: HeadState,
    private readonly nodes: MarkedStore<N>,
    private readonly preimages: MarkedStore<P>,
    private readonly reorg: (dropped: StoredBlock[]) => void,
  ) {}

  get instanceId(): string {
    return this.id;
  }

  async snapshot(): Promise<HeadRecord<N, P>> {
    // The root first: taking it writes the state's pending edits into the store.
    const stateRoot = await this.state.getStateRoot();
    return { blockNumber: this.store.headNumber, stateRoot, nodes: this.nodes.mark(), preimages: this.preimages.mark(), rollbacks: this.rollbacks };
  }

  async restore(s: HeadRecord<N, P>): Promise<void> {
    await this.rewind(s.blockNumber, s.stateRoot);
    // Every trie node written since the snapshot belongs to blocks and edits now gone, unless a
    // rollback since replaced blocks the chain keeps (their nodes were written after the mark).
    if (s.rollbacks === this.rollbacks) {
      this.nodes.rewind(s.nodes);
      this.preimages.rewind(s.preimages);
      this.state.storeRewound();
    }
  }

  /** No snapshot is left: the stores stop journaling. */
  endJournals(): void {
    this.nodes.endJournal();
    this.preimages.endJournal();
  }

  /** anvil_rollback: back to block `target`, in the state it was left in (caller holds the lock). */
  async rollBackTo(target: StoredBlock, stateRoot: Uint8Array): Promise<void> {
    this.rollbacks++;
    await this.rewind(target.number, stateRoot);
  }

  /** Drop every block above `n` and set the live state to `stateRoot`. */
  private async rewind(n: bigint, stateRoot: Uint8Array): Promise<void> {
    const dropped = this.store.truncate(n);
    await this.state.setStateRoot(stateRoot);
    if (dropped.length) this.reorg(dropped);
  }

  /**
   * No blocks and an empty state; nothing of the old chain is read again, so its trie nodes, code
   * and key preimages go. The dropped blocks are announced by `announceReset`, once a new genesis
   * stands.
   */
  async reset(): Promise<void> {
    this.resetDropped = this.store.truncate(-1n);
    await this.state.setStateRoot(KECCAK256_RLP);
    this.nodes.clear();
    this.preimages.clear();
    this.state.storeRewound();
    this.store.rebase(0n);
    this.id = newInstanceId();
  }

  announceReset(): void {
    const dropped = this.resetDropped;
    this.resetDropped = [];
    if (dropped.length) this.reorg(dropped);
  }
}

function newInstanceId(): string {
  return bytesToHex(randomBytes(32));
}
