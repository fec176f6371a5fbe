/**
 * Mining: which pool transactions go into the next block and in what order, building it on the
 * live state, automine and interval mining, and runs of empty blocks (anvil_mine of many).
 */
import type { EventEmitter } from 'node:events';
import type { Block } from '@ethereumjs/block';
import { isBlob4844Tx, type Blob4844Tx } from '@ethereumjs/tx';
import { createAddressFromString, equalsBytes } from '@ethereumjs/util';
import { maxBlobsPerBlock } from '../pool/blobs.js';
import type { VM } from '@ethereumjs/vm';
import { ConsoleWatch } from '../exec/console.js';
import { recordCoverage } from '../exec/coverage.js';
import type { CoverageRecorder } from '../core/coverage.js';
import { TxRejected } from '../exec/rejections.js';
import { readyKeccak } from '../core/keccak.js';
import { askingClient, type Lock } from '../core/lock.js';
import type { ForkLink, NodeStateManager } from '../engine/forkState.js';
import type { Fork } from '../fork/fork.js';
import type { BlockStore } from '../head/store.js';
import type { NextBlock } from '../owners/nextBlock.js';
import type { MiningMode } from '../owners/miningMode.js';
import type { NodeEvents } from '../pool/events.js';
import type { PendingTx, PoolContent, TxPool } from '../pool/txpool.js';
import type { StoredBlock } from '../core/types.js';
import { mineBlock, type BlockEnv } from './block.js';
import { EmptyRun, LAZY_RUN_MIN, emptyBlocksKeepState } from '../head/emptyRuns.js';

/** What mining works on: the live state and VM, the blocks, the pool, and the owners of the next block's settings. */
export interface MiningHost {
  readonly events: EventEmitter<NodeEvents>;
  readonly store: BlockStore;
  readonly state: NodeStateManager;
  readonly vm: VM;
  /** The VM over the live state under the rules of block `number` at `timestamp`. */
  vmOfBlock(number: bigint, timestamp: bigint): VM;
  /** The chain's rules (one fork, or a schedule). */
  readonly rules: { readonly single: unknown };
  readonly lock: Lock;
  readonly forkLink: ForkLink<Fork>;
  readonly clock: NextBlock;
  readonly fees: { pendingBaseFee(): bigint | undefined };
  readonly pool: TxPool;
  readonly mining: MiningMode;
  /** Counts the instructions of mined transactions (--coverage). */
  readonly coverage: CoverageRecorder | undefined;
}

export class Mining {
  constructor(private readonly n: MiningHost) {}

  /**
   * Mine one block on the live state from `txs` (caller holds the lock). `admitted`: the first of
   * `txs` passed the pool's admission on the live state just now (the automined send).
   */
  async mine(txs: PendingTx[], requireAll: boolean, admitted?: PendingTx): Promise<StoredBlock> {
    // On a fork, what every block reads is fetched first: an unreachable upstream stops the block before it starts.
    await this.n.forkLink.fork?.state.prefetchBlockReads();
    const parent = this.n.store.head.block;
    // State edited between blocks (test controls) is part of this block's starting point: replays
    // of its transactions must start there, not at the parent's root.
    const preStateRoot = await this.n.state.getStateRoot();
    const env = this.nextEnv(parent);
    // The block runs the rules of its number and time (one fork: always the same VM).
    const vm = this.n.vmOfBlock(parent.header.number + 1n, env.timestamp);
    // console.log lines are collected only while someone listens for them.
    const consoleWatch = this.n.events.listenerCount('console') > 0 ? new ConsoleWatch(vm.evm) : undefined;
    let outcome;
    try {
      const coverage = this.n.coverage;
      const build = () => mineBlock(vm, parent, txs, env, requireAll, admitted);
      outcome = await (coverage === undefined ? build() : recordCoverage(vm.evm.events, coverage, build));
      this.n.clock.mined();
    } finally {
      consoleWatch?.stop();
    }
    const { stored, skipped } = outcome;
    if (!equalsBytes(preStateRoot, parent.header.stateRoot)) stored.preStateRoot = preStateRoot;
    // Transactions that no longer fit stay in the pool for the next block.
    for (const s of skipped) {
      if (s.error instanceof TxRejected && s.error.kind === 'block-full') this.n.pool.add(s.ptx);
      else this.n.events.emit('dropped', s.ptx, s.error.message);
    }
    this.n.store.add(stored);
    if (consoleWatch) for (const [tx, lines] of consoleWatch.byTx(stored.txs)) this.n.events.emit('console', tx, lines);
    this.n.events.emit('block', stored);
    return stored;
  }

  private nextEnv(parent: Block): BlockEnv {
    const clock = this.n.clock;
    return {
      timestamp: clock.next(parent.header.timestamp),
      coinbase: clock.coinbase,
      gasLimit: clock.gasLimit,
      baseFeePerGas: this.n.fees.pendingBaseFee(),
      prevRandao: clock.prevRandao,
      parentHash: this.n.store.head.hash,
    };
  }

  /** Mine one block from the pool's executable transactions in the configured order. */
  async mineNow(): Promise<StoredBlock> {
    return this.n.lock.run(() => this.minePool());
  }

  private async minePool(): Promise<StoredBlock> {
    const picked = await this.nextBlockTxs();
    for (const p of picked) this.n.pool.remove(p.hashHex);
    const stored = await this.mine(picked, false);
    // As anvil: a transaction whose nonce the chain has passed (anvil_setNonce moved the account on)
    // can never be mined, and leaves the pool with the next block.
    if (this.n.pool.size > 0) for (const p of this.n.pool.dropStale(await this.senderNonces())) this.n.events.emit('dropped', p, 'nonce too low');
    return stored;
  }

  /** The pool's transactions the next block would take, in its order; the pool is left as it is (caller holds the lock). */
  async nextBlockTxs(): Promise<PendingTx[]> {
    if (this.n.pool.size === 0) return [];
    const nonces = await this.senderNonces();
    const baseFee = this.n.fees.pendingBaseFee();
    const gasLimit = this.n.clock.gasLimit;
    const picked: PendingTx[] = [];
    const blocked = new Set<string>();
    let gas = 0n;
    // Blob transactions: as many blobs as the schedule's maximum, and only those offering the
    // next block's blob base fee (the others wait for it to fall).
    const blobs = this.n.vm.common.isActivatedEIP(4844);
    const blobFee = blobs ? this.n.store.head.block.header.calcNextBlobGasPrice(this.n.vm.common) : 0n;
    let blobsLeft = blobs ? maxBlobsPerBlock(this.n.vm.common) : 0;
    for (const p of this.n.pool.ordered(nonces, this.n.mining.order, baseFee)) {
      const sender = p.from.toString();
      const blobCount = isBlob4844Tx(p.tx) ? p.tx.numBlobs() : 0;
      // Overflow stays pending; a sender's later nonces cannot go in once one was left out.
      if (blocked.has(sender) || gas + p.tx.gasLimit > gasLimit || blobCount > blobsLeft || (blobCount > 0 && (p.tx as Blob4844Tx).maxFeePerBlobGas < blobFee)) {
        blocked.add(sender);
        continue;
      }
      gas += p.tx.gasLimit;
      blobsLeft -= blobCount;
      picked.push(p);
    }
    return picked;
  }

  /** The pool split into pending and queued per sender, against the live state's nonces. */
  async poolContent(): Promise<PoolContent> {
    return this.n.lock.run(async () => this.n.pool.content(await this.senderNonces()));
  }

  /** The live state's nonce of every sender in the pool (caller holds the lock). */
  private async senderNonces(): Promise<Map<string, bigint>> {
    const nonces = new Map<string, bigint>();
    for (const sender of this.n.pool.senderAddresses()) {
      nonces.set(sender, (await this.n.state.getAccount(createAddressFromString(sender)))?.nonce ?? 0n);
    }
    return nonces;
  }

  /**
   * Turn automine on or off; turning it on mines what waits in the pool. In request order, as every
   * control: a snapshot asked for before this call keeps the mode it found.
   */
  async setAutomine(on: boolean): Promise<void> {
    await this.n.lock.run(async () => {
      this.n.mining.setAuto(on);
      if (on && this.n.pool.size > 0) await this.minePool();
    });
  }

  /**
   * Mine a block every `ms` milliseconds (0 turns interval mining off); with `maxMs`, each delay is
   * drawn from [ms, maxMs] (hardhat's range form).
   */
  setIntervalMining(ms: number, maxMs?: number): void {
    this.n.mining.setInterval(ms, maxMs);
  }

  /** One interval tick: a block from the pool; a failure is reported as an `error` event. */
  readonly tick = (): void => {
    this.mineNow().catch((err) => this.n.events.emit('error', err as Error));
  };

  /**
   * Mine `count` blocks (evm_mine, anvil_mine, hardhat_mine). Waiting transactions go into the
   * first ones; once a block comes out empty, the rest are recorded as a run of empty blocks built
   * on demand (mining/emptyRuns.ts), unless `detailed` wants every block now. `timestamp` sets the first
   * block's time; with `interval` the blocks after the first are that many seconds apart. Returns
   * the blocks built now.
   */
  async mineBlocks(count: number, opts: { interval?: bigint; timestamp?: bigint; detailed?: boolean } = {}): Promise<StoredBlock[]> {
    const { interval, timestamp, detailed = false } = opts;
    const client = askingClient();
    if (count >= LAZY_RUN_MIN) await readyKeccak();
    return this.n.lock.run(async () => {
      if (timestamp !== undefined) this.n.clock.setNext(timestamp, this.n.store.head.block.header.timestamp);
      const mined: StoredBlock[] = [];
      let left = count;
      // Runs of empty blocks follow one fork's header recipe: a chain whose rules change over
      // time mines each block (a run could cross a fork).
      const runs = !detailed && this.n.rules.single !== undefined;
      if (runs && left >= LAZY_RUN_MIN && (await this.extendEmptyRun(left, interval))) return mined;
      while (left > 0) {
        if (interval !== undefined && mined.length > 0) this.n.clock.setNextUnchecked(mined[mined.length - 1].block.header.timestamp + interval);
        const b = await this.minePool();
        mined.push(b);
        left--;
        // An empty block with nothing executable left: every later block is the same but for
        // number, time, fees and parent, so the rest become a run built on demand.
        if (runs && left >= LAZY_RUN_MIN && b.txs.length === 0 && (await emptyBlocksKeepState(this.n.state))) {
          const run = new EmptyRun(b.block, left, interval ?? this.n.clock.interval ?? 1n);
          this.n.store.addRun(run);
          this.afterRun(run, interval);
          break;
        }
      }
      return mined;
    }, client);
  }

  /** Continue the run at the head when the next blocks would follow its recipe exactly. */
  private async extendEmptyRun(count: number, interval: bigint | undefined): Promise<boolean> {
    const run = this.n.store.headRun;
    const clock = this.n.clock;
    if (!run || this.n.pool.size > 0 || clock.baseFee !== undefined || clock.nextTimestamp !== undefined) return false;
    const t = run.template;
    const lastTs = run.timestampAt(run.count - 1);
    const same =
      (interval ?? clock.interval ?? 1n) === run.interval &&
      clock.next(lastTs) === lastTs + run.interval &&
      clock.coinbase.equals(t.coinbase) &&
      clock.gasLimit === t.gasLimit &&
      equalsBytes(clock.prevRandao, t.mixHash) &&
      equalsBytes(await this.n.state.getStateRoot(), t.stateRoot);
    if (!same) return false;
    const first = run.last + 1n;
    this.n.store.extendHeadRun(count);
    this.afterRun(run, interval, first);
    return true;
  }

  private afterRun(run: EmptyRun, interval: bigint | undefined, first = run.first): void {
    // As with timestamped blocks, the clock continues from the last block's time.
    if (interval !== undefined) this.n.clock.increase(run.timestampAt(run.count - 1) - this.n.clock.now());
    this.n.events.emit('emptyBlocks', first, run.last);
  }
}
