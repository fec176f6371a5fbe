/**
 * The pending block: the block the node would mine if it mined now. Calls, estimates, access
 * lists and traces at `pending` run in its environment — the next block number, the timestamp the
 * clock gives the next block (evm_setNextBlockTimestamp, evm_increaseTime, a timestamp interval),
 * the next base fee, the coinbase, prevrandao and the block gas limit — and on its state: the
 * head's, plus, while transactions wait in the pool (mining off, interval mining), those the next
 * block would take, run in mining order, as anvil's pending state has them.
 */
import { createBlock, type Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { KECCAK256_RLP, bytesToHex, bytesToUnprefixedHex, equalsBytes } from '@ethereumjs/util';
import { runTx, type VM } from '@ethereumjs/vm';
import { headerFields } from '../exec/blockContext.js';
import { asSender } from '../exec/call.js';
import { feesOf, runChecked } from '../exec/rejections.js';
import { withPrefetch } from '../fork/prefetch.js';
import type { Lock } from '../core/lock.js';
import type { StoredBlock } from '../core/types.js';
import type { NodeStateManager } from '../engine/forkState.js';
import type { BlockStore } from '../head/store.js';
import type { NextBlock } from '../owners/nextBlock.js';
import type { PendingTx } from '../pool/txpool.js';
import { mineBlock } from './block.js';
import type { Mining } from './mining.js';

/** What the pending block is made of: the head, the live state and VM, and the next block's settings and base fee. */
export interface PendingHost {
  readonly store: BlockStore;
  readonly state: NodeStateManager;
  readonly vm: VM;
  readonly common: Common;
  readonly lock: Lock;
  readonly clock: NextBlock;
  readonly fees: { pendingBaseFee(): bigint | undefined };
  /**
   * The trie's node store, by unprefixed hex key: a revert lets go of the nodes written since its
   * snapshot (only the store says so; decoded copies of them may still answer reads for a while).
   */
  readonly trieNodes: { has(key: string): boolean };
}

/** A pending block built: the header and state it was built from, the block, its post state. */
interface Built {
  /** The live state root and the transactions it was built from. */
  key: string;
  header: Block;
  block: StoredBlock;
  /** Its post state (reads only). */
  state: MerkleStateManager;
  /** The reads of `state` waiting their turn. */
  turns: Promise<void>;
}

const noop = (): void => undefined;

export class PendingBlock {
  /** The last pending header built, and what it was built from. */
  private cached: { key: string; common: Common; block: Block } | undefined;
  /** The last pending block built, with its post state, and what it was built from. */
  private built: Built | undefined;

  constructor(
    private readonly n: PendingHost,
    private readonly miner: Pick<Mining, 'nextBlockTxs'>,
  ) {}

  /**
   * The block mined next on `parent` (the head) as a block without transactions: the header calls
   * at `pending` run in. Rebuilt when anything it is made of changes (at most once a second while
   * the clock follows the wall clock).
   */
  header(parent: StoredBlock = this.n.store.head): Block {
    const n = this.n;
    const clock = n.clock;
    const h = parent.block.header;
    const timestamp = clock.peek(h.timestamp);
    const baseFee = n.fees.pendingBaseFee();
    const key = `${parent.hashHex}/${timestamp}/${clock.gasLimit}/${clock.coinbase.toString()}/${bytesToHex(clock.prevRandao)}/${baseFee}`;
    const common = n.common;
    if (this.cached?.key === key && this.cached.common === common) return this.cached.block;
    const blobs = common.isActivatedEIP(4844);
    const block = createBlock(
      {
        header: {
          ...headerFields(h),
          parentHash: parent.hash,
          number: parent.number + 1n,
          timestamp,
          gasLimit: clock.gasLimit,
          gasUsed: 0n,
          coinbase: clock.coinbase,
          mixHash: clock.prevRandao,
          baseFeePerGas: baseFee,
          excessBlobGas: blobs ? h.calcNextExcessBlobGas(common) : undefined,
          blobGasUsed: blobs ? 0n : undefined,
        },
      },
      { common, skipConsensusFormatValidation: true },
    );
    this.cached = { key, common, block };
    return block;
  }

  /**
   * Run `fn` on the live VM in the pending block, under the node's lock: the waiting transactions
   * the next block would take are run first and undone afterwards, with whatever `fn` did. `fn`
   * must leave the state as it found it (calls revert their checkpoints).
   */
  run<T>(fn: (vm: VM, block: Block) => Promise<T>): Promise<T> {
    const n = this.n;
    return withPrefetch(
      n.state,
      async () => {
        const block = this.header();
        const txs = await this.miner.nextBlockTxs();
        if (txs.length === 0) return fn(n.vm, block);
        const sm = n.vm.stateManager;
        await sm.checkpoint();
        try {
          await applyTxs(n.vm, block, txs);
          return await fn(n.vm, block);
        } finally {
          await sm.revert();
          sm.originalStorageCache.clear();
        }
      },
      (run) => n.lock.read(run),
    );
  }

  /**
   * The pending block itself, as block methods at `pending` answer it: the block `header()`
   * describes, built on a private copy of the live state from the transactions the next block
   * would take (none under automine, the pool's with mining off), as mining would build it, with
   * their receipts; nothing reaches the chain. A trace replays it on the state it was built on
   * (its `preStateRoot` when edits followed the head).
   */
  async block(open: (root: Uint8Array, at: StoredBlock) => Promise<VM>): Promise<StoredBlock> {
    return (await this.current(open)).block;
  }

  /**
   * Run `fn` on the pending block's post state, as state reads at `pending` see it (geth reads the
   * miner's pending state): the state the block was built into, kept with it. Reads take turns on
   * it (on a fork, reads it does not hold yet are fetched between runs); `fn` only reads.
   */
  async withState<T>(open: (root: Uint8Array, at: StoredBlock) => Promise<VM>, fn: (sm: MerkleStateManager, at: StoredBlock) => Promise<T>): Promise<T> {
    const built = await this.current(open);
    return withPrefetch(built.state, () => fn(built.state, built.block), (run) => {
      const turn = built.turns.then(run);
      built.turns = turn.then(noop, noop);
      return turn;
    });
  }

  /**
   * The pending block and its post state, built now or the last one built: that one is answered
   * again while the header, the live state and the pool's next transactions are unchanged and its
   * state is still in the trie's node store (a revert to a snapshot taken before it was built lets
   * go of the nodes written since; its root was written last, so it stands for them all).
   */
  private async current(open: (root: Uint8Array, at: StoredBlock) => Promise<VM>): Promise<Built> {
    const n = this.n;
    const { root, at, header, txs, kept } = await n.lock.read(async () => ({
      root: await n.state.getStateRoot(),
      at: n.store.head,
      header: this.header(),
      txs: await this.miner.nextBlockTxs(),
      kept: this.built !== undefined && inStore(n, this.built.block.block.header.stateRoot),
    }));
    // header() answers the same object while nothing it is made of changed.
    const key = `${bytesToHex(root)}/${txs.map((t) => t.hashHex).join(',')}`;
    const last = this.built;
    if (last !== undefined && kept && last.header === header && last.key === key) return last;
    const h = header.header;
    const env = { timestamp: h.timestamp, coinbase: h.coinbase, gasLimit: h.gasLimit, baseFeePerGas: h.baseFeePerGas, prevRandao: h.mixHash, parentHash: at.hash };
    const vm = await open(root, at);
    const { stored } = await mineBlock(vm, at.block, txs, env);
    if (!equalsBytes(root, at.block.header.stateRoot)) stored.preStateRoot = root;
    const built: Built = { key, header, block: stored, state: vm.stateManager as MerkleStateManager, turns: Promise.resolve() };
    this.built = built;
    return built;
  }

  /**
   * A private VM holding the pending block's state (traces, simulations), from `open` (a copy of
   * the live state at a root); nothing done on it reaches the chain.
   */
  async vm(open: (root: Uint8Array, at: StoredBlock) => Promise<VM>): Promise<{ vm: VM; at: StoredBlock; block: Block }> {
    const n = this.n;
    const { root, at, block, txs } = await n.lock.read(async () => ({
      root: await n.state.getStateRoot(),
      at: n.store.head,
      block: this.header(),
      txs: await this.miner.nextBlockTxs(),
    }));
    const vm = await open(root, at);
    if (txs.length > 0) await applyTxs(vm, block, txs);
    return { vm, at, block };
  }
}

/** Whether the state at `root` is in the trie's node store (the empty state needs no node). */
function inStore(n: PendingHost, root: Uint8Array): boolean {
  return equalsBytes(root, KECCAK256_RLP) || n.trieNodes.has(bytesToUnprefixedHex(root));
}

/**
 * Run `txs` in order on `vm` as the block `block` would: each checked as mining checks it and
 * skipped when refused (mining would leave it out too), the block's gas limit respected.
 */
async function applyTxs(vm: VM, block: Block, txs: readonly PendingTx[]): Promise<void> {
  const checks = { ...feesOf(block.header), gasLeft: block.header.gasLimit };
  for (const ptx of txs) {
    try {
      const result = await runChecked(vm, ptx.tx, ptx.from, checks, () =>
        asSender(vm, ptx.from, () => runTx(vm, { tx: ptx.tx, block, skipHardForkValidation: true, skipBlockGasLimitValidation: true })),
      );
      checks.gasLeft -= result.totalGasSpent;
    } catch {
      // Refused now (the sender's balance moved, the fee no longer pays the base fee): not in the block.
    }
  }
  vm.stateManager.originalStorageCache.clear();
}
