/** In-memory block, transaction and receipt store with indexes by number and hash. */
import type { MinedTx, StoredBlock } from './types.js';

export class BlockStore {
  private readonly blocks: StoredBlock[] = [];
  private readonly byHash = new Map<string, StoredBlock>();
  private readonly txByHash = new Map<string, MinedTx>();

  get head(): StoredBlock {
    return this.blocks[this.blocks.length - 1];
  }

  get headNumber(): bigint {
    return BigInt(this.blocks.length - 1);
  }

  add(stored: StoredBlock): void {
    if (stored.number !== BigInt(this.blocks.length)) throw new Error(`block ${stored.number} out of order`);
    this.blocks.push(stored);
    this.byHash.set(stored.hashHex, stored);
    for (const t of stored.txs) this.txByHash.set(t.hashHex, t);
  }

  byNumber(n: bigint): StoredBlock | undefined {
    return n >= 0n && n < BigInt(this.blocks.length) ? this.blocks[Number(n)] : undefined;
  }

  byHashHex(hashHex: string): StoredBlock | undefined {
    return this.byHash.get(hashHex);
  }

  tx(hashHex: string): MinedTx | undefined {
    return this.txByHash.get(hashHex);
  }

  /** Drop every block above `n`; returns the dropped blocks, oldest first. */
  truncate(n: bigint): StoredBlock[] {
    const dropped = this.blocks.splice(Number(n) + 1);
    for (const b of dropped) {
      this.byHash.delete(b.hashHex);
      for (const t of b.txs) this.txByHash.delete(t.hashHex);
    }
    return dropped;
  }

  /** Blocks in [from, to], inclusive. */
  range(from: bigint, to: bigint): StoredBlock[] {
    return this.blocks.slice(Number(from), Number(to) + 1);
  }
}
