/**
 * Chain history controls: snapshots (evm_snapshot / evm_revert), anvil_rollback, anvil_reorg and
 * anvil_reset.
 * A snapshot is a state root into the trie plus copies of the pool, clock and settings, taken in
 * request order. It also marks the trie's node store, so a revert lets go of the nodes written
 * since: a test suite that reverts after every test does not keep every test's state.
 */
import { randomBytes } from 'node:crypto';
import { KECCAK256_RLP, bytesToHex } from '@ethereumjs/util';
import { ChainError } from '../core/errors.js';
import type { StoreMark } from '../engine/nodeStore.js';
import type { Fork } from '../fork/fork.js';
import type { PendingTx } from '../mining/block.js';
import type { Mining } from '../mining/mining.js';
import type { BlockSettings, NodeParts } from '../parts.js';
import type { Intake } from '../pool/intake.js';
import type { TxPool } from '../pool/txpool.js';
import type { TxRequest } from '../core/types.js';
import { Clock } from './clock.js';
import type { MiningSettings } from './settings.js';

interface Snapshot {
  blockNumber: bigint;
  /** The live state root (edits made after the head block included). */
  stateRoot: Uint8Array;
  pool: TxPool;
  clock: Clock;
  mining: MiningSettings;
  settings: BlockSettings;
  /** Where the node store and the preimages stood when the state root was taken. */
  mark: StoreMark;
  preimages: number;
  /** `History.rollbacks` then. */
  rollbacks: number;
}

export class History {
  /** Taken in lock order, so a snapshot sees exactly the operations requested before it. */
  private readonly snapshots = new Map<bigint, Promise<Snapshot>>();
  private nextSnapshotId = 1n;
  /** Rollbacks (anvil_rollback, anvil_reorg) that dropped blocks so far. */
  private rollbacks = 0;

  constructor(
    private readonly n: NodeParts,
    private readonly miner: Mining,
    private readonly intake: Intake,
  ) {}

  /**
   * Record everything needed to come back here; returns the snapshot id. The record is taken in
   * lock order: it holds every operation requested before this call and none requested after.
   * Cheap: the state is a root into the trie (old nodes are kept), not a copy.
   */
  snapshot(): bigint {
    const id = this.nextSnapshotId++;
    const taken = this.n.lock.run(
      async (): Promise<Snapshot> => {
        // The root first: taking it writes the state's pending edits into the store.
        const stateRoot = await this.n.state.getStateRoot();
        return {
          blockNumber: this.n.store.headNumber,
          stateRoot,
          pool: this.n.pool.clone(),
          clock: this.n.clock.clone(),
          mining: { ...this.n.mining },
          settings: this.n.blockSettings(),
          mark: this.n.trieNodes.mark(),
          preimages: this.n.preimages.mark(),
          rollbacks: this.rollbacks,
        };
      },
    );
    taken.catch(() => undefined);
    this.snapshots.set(id, taken);
    return id;
  }

  /** Ids of the snapshots that can still be reverted to, oldest first. */
  snapshotIds(): bigint[] {
    return [...this.snapshots.keys()];
  }

  /** Head block number recorded by snapshot `id` (undefined for unknown ids). */
  async snapshotBlock(id: bigint): Promise<bigint | undefined> {
    return (await this.snapshots.get(id))?.blockNumber;
  }

  /** Forget every snapshot (the chain they point into was replaced). */
  clearSnapshots(): void {
    this.snapshots.clear();
    this.endJournals();
  }

  private endJournals(): void {
    this.n.trieNodes.endJournal();
    this.n.preimages.endJournal();
  }

  /** Return to snapshot `id`; it and every later snapshot are used up. False for unknown ids. */
  async revert(id: bigint): Promise<boolean> {
    const taken = this.snapshots.get(id);
    if (!taken) return false;
    for (const k of [...this.snapshots.keys()]) if (k >= id) this.snapshots.delete(k);
    const snap = await taken;
    await this.n.lock.run(async () => {
      await this.rewind(snap.blockNumber, snap.stateRoot);
      // Every trie node written since the snapshot belongs to blocks and edits now gone, unless a
      // rollback since replaced blocks the chain keeps (their nodes were written after the mark).
      if (snap.rollbacks === this.rollbacks) {
        this.n.trieNodes.rewind(snap.mark);
        this.n.preimages.rewind(snap.preimages);
        this.n.state.storeRewound();
      }
      if (this.snapshots.size === 0) this.endJournals();
      this.n.pool = snap.pool.clone();
      this.n.clock = snap.clock.clone();
      this.n.restoreBlockSettings(snap.settings);
    });
    this.n.mining.auto = snap.mining.auto;
    this.n.mining.order = snap.mining.order;
    this.miner.setIntervalMining(snap.mining.intervalMs ?? 0, snap.mining.intervalMaxMs);
    return true;
  }

  /**
   * anvil_rollback: drop the last `depth` blocks. Their transactions are gone (not back in the
   * pool, as in anvil) and their logs are reported removed to filters and subscriptions.
   */
  async rollback(depth: bigint): Promise<void> {
    await this.n.lock.run(async () => {
      const head = this.n.store.headNumber;
      if (depth > head - this.n.store.base) throw new ChainError(`depth ${depth} exceeds the ${head - this.n.store.base} blocks this chain can roll back`, undefined, -32602);
      if (depth === 0n) return;
      const target = this.n.store.byNumber(head - depth)!;
      this.rollbacks++;
      await this.rewind(target.number, this.n.stateRootOf(target));
    });
  }

  /**
   * anvil_reorg: replace the last `depth` blocks with as many new ones, block `i` holding the
   * transactions given with offset `i` (signed raw ones, or requests signed here or sent as
   * impersonated senders). A transaction that cannot be included fails the call.
   */
  async reorg(depth: bigint, txs: ReadonlyArray<{ tx: Uint8Array | TxRequest; offset: number }>): Promise<void> {
    if (txs.some((t) => t.offset >= Number(depth))) throw new ChainError(`a transaction's block offset must be below the depth ${depth}`, undefined, -32602);
    await this.rollback(depth);
    for (let i = 0; i < Number(depth); i++) {
      const block: PendingTx[] = [];
      for (const { tx } of txs.filter((t) => t.offset === i)) block.push(await this.intake.pendingFor(tx, block));
      await this.n.lock.run(() => this.miner.mine(block, true));
    }
  }

  /** Drop every block above `n` and reset the live state to `stateRoot` (caller holds the lock). */
  private async rewind(n: bigint, stateRoot: Uint8Array): Promise<void> {
    const dropped = this.n.store.truncate(n);
    await this.n.state.setStateRoot(stateRoot);
    if (dropped.length) this.n.events.emit('reorg', dropped);
  }

  /**
   * Back to a fresh genesis with the configured accounts (anvil_reset / hardhat_reset without
   * forking): blocks, pool, snapshots, time, impersonation and block settings are cleared; the
   * mining mode and chain id stay. With `fork`, the new genesis is that fork point (a re-fork);
   * without, a forked chain stops forking. A chain id that was the old upstream's becomes the new
   * upstream's.
   */
  async reset(fork?: Fork): Promise<void> {
    const old = this.n.forkLink.fork;
    // A chain id that followed the upstream follows the new one.
    const followChainId = fork !== undefined && old !== undefined && this.n.config.chainId === old.chainId && fork.chainId !== old.chainId;
    // Read what the new genesis needs first: an unreachable upstream leaves the chain as it was.
    if (fork !== undefined) await fork.state.prefetch(this.n.accounts.map((a) => a.address), []);
    await this.n.lock.run(async () => {
      const dropped = this.n.store.truncate(-1n);
      for (const p of this.n.pool.clear()) this.n.events.emit('dropped', p, 'reset');
      this.clearSnapshots();
      this.n.clock = new Clock();
      this.n.impersonated.clear();
      this.n.autoImpersonate = false;
      this.n.restoreBlockSettings(this.n.defaults);
      await this.n.state.setStateRoot(KECCAK256_RLP);
      // Nothing of the old chain is read again: its trie nodes, code and key preimages go.
      this.n.trieNodes.clear();
      this.n.preimages.clear();
      this.n.state.storeRewound();
      this.n.forkLink.fork = fork;
      if (old !== undefined && old !== fork) old.close();
      this.n.store.rebase(0n);
      await this.n.genesis(fork);
      this.n.instanceId = bytesToHex(randomBytes(32));
      if (dropped.length) this.n.events.emit('reorg', dropped);
    });
    if (followChainId) await this.n.setChainId(fork.chainId);
  }
}
