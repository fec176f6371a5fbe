/**
 * Chain history controls: snapshots (evm_snapshot / evm_revert), anvil_rollback, anvil_reorg and
 * anvil_reset.
 * A snapshot is every owner's record (core/owner.ts), taken in lock order: the head's is a
 * state root into the trie plus marks into its node store, so a revert lets go of the nodes written
 * since and a test suite that reverts after every test does not keep every test's state. What a
 * snapshot, a revert and a reset cover is the node's list of owners, not a list here.
 */
import { ChainError } from '../core/errors.js';
import { askingClient, type Client, type Lock } from '../core/lock.js';
import type { OwnerRecords, Owners } from '../core/owner.js';
import type { StoredBlock, TxRequest } from '../core/types.js';
import type { ForkLink } from '../engine/forkState.js';
import { rulesOfChain } from '../engine/common.js';
import type { ChainConfig } from '../core/config.js';
import type { Fork } from '../fork/fork.js';
import type { Head } from '../head/head.js';
import type { PendingTx } from '../pool/txpool.js';
import type { DevAccount } from '../wallet/accounts.js';

/** What history works on: the owners, the head among them, the lock, and how a new genesis is written. */
export interface HistoryHost {
  readonly lock: Lock;
  readonly owners: Owners;
  readonly chainHead: Head;
  readonly forkLink: ForkLink<Fork>;
  readonly config: Pick<ChainConfig, 'chainId' | 'hardfork' | 'schedule' | 'rulesOfFork'>;
  readonly accounts: readonly DevAccount[];
  stateRootOf(at: StoredBlock): Uint8Array;
  /** Write block 0: a fresh genesis, or the fork point of `fork`. */
  genesis(fork?: Fork): Promise<void>;
  /** Under the lock: run these rules for chain `chainId`. */
  useRules(chainId: bigint, rules: Pick<ChainConfig, 'hardfork' | 'schedule'>): Promise<void>;
}

/** Mines a block of exactly the given transactions (anvil_reorg). */
export interface BlockMiner {
  mine(txs: PendingTx[], requireAll: boolean): Promise<StoredBlock>;
}

/** Turns a raw transaction or a request into a pool entry, checked against the others of its block. */
export interface TxIntake {
  pendingFor(tx: Uint8Array | TxRequest, block: readonly PendingTx[]): Promise<PendingTx>;
}

interface Snapshot {
  blockNumber: bigint;
  /** Every owner's record. */
  records: OwnerRecords;
}

export class History {
  /** Taken in lock order, so a snapshot sees exactly the changes that ran before it (core/lock.ts). */
  private readonly snapshots = new Map<bigint, Promise<Snapshot>>();
  private nextSnapshotId = 1n;

  constructor(
    private readonly n: HistoryHost,
    private readonly miner: BlockMiner,
    private readonly intake: TxIntake,
  ) {}

  /**
   * Record everything needed to come back here; returns the snapshot id. The record is taken in
   * lock order: it holds every change its client requested before this call and none requested
   * after, and of other clients' changes those that had their turn before it.
   * Cheap: the state is a root into the trie (old nodes are kept), not a copy.
   */
  snapshot(): bigint {
    const id = this.nextSnapshotId++;
    const taken = this.n.lock.run(async (): Promise<Snapshot> => {
      const blockNumber = this.n.chainHead.store.headNumber;
      return { blockNumber, records: await this.n.owners.snapshot() };
    });
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
    this.n.chainHead.endJournals();
  }

  /** Return to snapshot `id`; it and every later snapshot are used up. False for unknown ids. */
  async revert(id: bigint): Promise<boolean> {
    const taken = this.snapshots.get(id);
    if (!taken) return false;
    for (const k of [...this.snapshots.keys()]) if (k >= id) this.snapshots.delete(k);
    const client = askingClient();
    const snap = await taken;
    await this.n.lock.run(async () => {
      await this.n.owners.restore(snap.records);
      if (this.snapshots.size === 0) this.n.chainHead.endJournals();
    }, client);
    return true;
  }

  /**
   * anvil_rollback: drop the last `depth` blocks. Their transactions are gone (not back in the
   * pool, as in anvil) and their logs are reported removed to filters and subscriptions.
   */
  async rollback(depth: bigint, client: Client | undefined = askingClient()): Promise<void> {
    await this.n.lock.run(async () => {
      const store = this.n.chainHead.store;
      const head = store.headNumber;
      if (depth > head - store.base) throw new ChainError(`depth ${depth} exceeds the ${head - store.base} blocks this chain can roll back`, undefined, -32602);
      if (depth === 0n) return;
      const target = store.byNumber(head - depth)!;
      await this.n.chainHead.rollBackTo(target, this.n.stateRootOf(target));
    }, client);
  }

  /**
   * anvil_reorg: replace the last `depth` blocks with as many new ones, block `i` holding the
   * transactions given with offset `i` (signed raw ones, or requests signed here or sent as
   * impersonated senders). A transaction that cannot be included fails the call.
   */
  async reorg(depth: bigint, txs: ReadonlyArray<{ tx: Uint8Array | TxRequest; offset: number }>): Promise<void> {
    if (txs.some((t) => t.offset >= Number(depth))) throw new ChainError(`a transaction's block offset must be below the depth ${depth}`, undefined, -32602);
    const client = askingClient();
    await this.rollback(depth, client);
    for (let i = 0; i < Number(depth); i++) {
      const block: PendingTx[] = [];
      for (const { tx } of txs.filter((t) => t.offset === i)) block.push(await this.intake.pendingFor(tx, block));
      await this.n.lock.run(() => this.miner.mine(block, true), client);
    }
  }

  /**
   * Back to a fresh genesis with the configured accounts (anvil_reset / hardhat_reset without
   * forking): every owner resets (blocks, pool, time, impersonation and block settings are
   * cleared; the mining mode stays), snapshots are forgotten, the chain id stays. With `fork`, the
   * new genesis is that fork point (a re-fork); without, a forked chain stops forking. A chain id
   * that was the old upstream's becomes the new upstream's. A fork started without `--hardfork`
   * picks its rules again, as a start would: the new upstream's chain's (a known chain's schedule,
   * else the default); without `fork`, the default.
   */
  async reset(fork?: Fork): Promise<void> {
    const old = this.n.forkLink.fork;
    // A chain id that followed the upstream follows the new one.
    const followChainId = fork !== undefined && old !== undefined && this.n.config.chainId === old.chainId && fork.chainId !== old.chainId;
    const client = askingClient();
    // Read what the new genesis needs first: an unreachable upstream leaves the chain as it was.
    if (fork !== undefined) await fork.state.prefetch(this.n.accounts.map((a) => a.address), []);
    await this.n.lock.run(async () => {
      this.clearSnapshots();
      await this.n.owners.reset();
      this.n.forkLink.fork = fork;
      if (old !== undefined && old !== fork) old.close();
      const chainId = followChainId ? fork.chainId : this.n.config.chainId;
      if (this.n.config.rulesOfFork === true) await this.n.useRules(chainId, rulesOfChain(fork?.chainId));
      else if (followChainId) await this.n.useRules(chainId, this.n.config);
      await this.n.genesis(fork);
      this.n.chainHead.announceReset();
    }, client);
  }
}
