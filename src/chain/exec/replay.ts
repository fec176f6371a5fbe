/**
 * Re-execution of mined transactions on a private VM: the block is rebuilt on top of its parent's
 * state with the header it was mined with, its earlier transactions applied, so a transaction runs
 * exactly as it did when mined, however much later blocks changed the state. The live state is
 * never touched.
 */
import type { Block } from '@ethereumjs/block';
import { buildBlock, type BlockBuilder, type RunTxResult, type VM } from '@ethereumjs/vm';
import { asSender } from './call.js';
import { ChainError } from '../core/errors.js';
import { engineRejection } from './rejections.js';
import type { BlockRef, MinedTx, StoredBlock } from '../core/types.js';

/** What a replay needs of the node: blocks, and a private VM opened at a state of a block. */
export interface ReplayHost {
  /** A block by number, tag or hash; undefined when there is none. */
  block(ref: BlockRef): StoredBlock | undefined;
  /** A private VM copy opened at `stateRoot`, a state of block `at`. */
  vmAt(stateRoot: Uint8Array, at: StoredBlock): Promise<VM>;
}

/** What a replay opens: the blocks, and a private VM at a state of one of them. */
export interface ReplayHost {
  readonly store: { byNumber(n: bigint): StoredBlock | undefined };
  vmAt(stateRoot: Uint8Array, at: StoredBlock): Promise<VM>;
}

/** A block being re-executed: `vm` holds the state before the next transaction to run. */
export class BlockReplay {
  private next = 0;

  private constructor(
    readonly stored: StoredBlock,
    readonly vm: VM,
    private readonly builder: BlockBuilder,
  ) {}

  /** Open a replay of `stored` positioned before its first transaction. */
  static async open(node: ReplayHost, stored: StoredBlock): Promise<BlockReplay> {
    if (stored.number === 0n) throw new ChainError('genesis is not traceable');
    const parent = node.block({ kind: 'number', number: stored.number - 1n });
    if (!parent) throw new ChainError(`parent of block #${stored.number} not found`);
    const vm = await node.vmAt(stored.preStateRoot ?? parent.block.header.stateRoot, stored.preStateRoot ? stored : parent);
    const h = stored.block.header;
    const builder = await buildBlock(vm, {
      parentBlock: parent.block,
      withdrawals: stored.block.withdrawals?.map((w) => w.toJSON()),
      headerData: {
        parentHash: h.parentHash,
        number: h.number,
        coinbase: h.coinbase,
        timestamp: h.timestamp,
        gasLimit: h.gasLimit,
        difficulty: h.difficulty,
        extraData: h.extraData,
        mixHash: h.mixHash,
        nonce: h.nonce,
        baseFeePerGas: h.baseFeePerGas,
        excessBlobGas: h.excessBlobGas,
        parentBeaconBlockRoot: h.parentBeaconBlockRoot,
      },
      blockOpts: { putBlockIntoBlockchain: false, common: vm.common },
    });
    return new BlockReplay(stored, vm, builder);
  }

  /** Open a replay of the block holding `tx`, positioned right before it. */
  static async before(node: ReplayHost, tx: MinedTx): Promise<BlockReplay> {
    const replay = await BlockReplay.open(node, tx.block);
    await replay.advanceTo(tx.index);
    return replay;
  }

  /** Index of the transaction that runs next. */
  get position(): number {
    return this.next;
  }

  /** The block context transactions run in (the block as it was mined). */
  get block(): Block {
    return this.stored.block;
  }

  /** Apply transactions without observing them until `index` is next. */
  async advanceTo(index: number): Promise<void> {
    if (index < this.next) throw new Error(`replay of block #${this.stored.number} is already past transaction ${index}`);
    if (index > this.stored.txs.length) throw new ChainError(`transaction index ${index} out of range: block #${this.stored.number} has ${this.stored.txs.length} transactions`);
    while (this.next < index) await this.step();
  }

  /** The transaction that runs next. */
  peek(): MinedTx | undefined {
    return this.stored.txs[this.next];
  }

  /** Run the next transaction; its effects stay in the replay's state. */
  async step(): Promise<RunTxResult> {
    const t = this.stored.txs[this.next];
    if (!t) throw new Error(`replay of block #${this.stored.number} has no transaction ${this.next}`);
    this.next++;
    return this.run(t);
  }

  /** Run `tx` at the current position, as the block builder ran it when mining. */
  private async run(t: MinedTx): Promise<RunTxResult> {
    try {
      return await asSender(this.vm, t.from, () => this.builder.addTransaction(t.tx, { skipHardForkValidation: true, allowNoBlobs: true }));
    } catch (err) {
      throw engineRejection(err);
    }
  }
}
