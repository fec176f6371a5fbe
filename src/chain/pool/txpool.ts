/**
 * The transaction pool, the owner of the transactions waiting for a block: per-sender
 * nonce-ordered lists. A transaction is pending (executable) when every nonce from the sender's
 * state nonce up to it is present, queued otherwise. Replacement of the same sender and nonce
 * needs a 10% higher fee cap and tip (geth's price bump, fees/rules.ts).
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import type { Address } from '@ethereumjs/util';
import type { BlobSidecar } from '../core/types.js';
import { ChainError } from '../core/errors.js';
import type { Owner } from '../core/owner.js';
import { effectiveTip, outbids } from '../fees/rules.js';
import type { BlockOrder } from '../owners/miningMode.js';

export type { BlockOrder } from '../owners/miningMode.js';

/** A transaction whose sender is known (recovered once, or impersonated). */
export interface PendingTx {
  tx: TypedTransaction;
  from: Address;
  hash: Uint8Array;
  hashHex: string;
  /** A blob transaction's sidecar (blobs, commitments, proofs). */
  sidecar?: BlobSidecar;
}

export interface PoolLimits {
  /** Transactions one sender may have in the pool (pending + queued). */
  perSender: number;
  /** Transactions in the whole pool. */
  global: number;
}

export const DEFAULT_POOL_LIMITS: PoolLimits = { perSender: 1024, global: 8192 };

/** The pool's transactions by sender (lowercase address), each list in nonce order. */
export interface PoolContent {
  pending: Map<string, PendingTx[]>;
  queued: Map<string, PendingTx[]>;
}

interface Entry {
  ptx: PendingTx;
  /** Arrival sequence, for fifo ordering. */
  seq: number;
}

export class TxPool implements Owner<PendingTx[]> {
  readonly name = 'pool';
  private readonly senders = new Map<string, Map<bigint, Entry>>();
  private readonly hashes = new Map<string, Entry>();
  private seq = 0;

  /** `dropped` hears of every transaction reset takes out. */
  constructor(
    private poolLimits: PoolLimits = DEFAULT_POOL_LIMITS,
    private readonly dropped: (p: PendingTx, reason: string) => void = () => {},
  ) {}

  get limits(): PoolLimits {
    return this.poolLimits;
  }

  /** New limits for transactions added from now on (those in the pool stay). */
  setLimits(limits: PoolLimits): void {
    this.poolLimits = limits;
  }

  get size(): number {
    return this.hashes.size;
  }

  has(hashHex: string): boolean {
    return this.hashes.has(hashHex);
  }

  get(hashHex: string): PendingTx | undefined {
    return this.hashes.get(hashHex)?.ptx;
  }

  /** Add a transaction; returns the one it replaced, if any. */
  add(ptx: PendingTx): PendingTx | undefined {
    if (this.hashes.has(ptx.hashHex)) throw new ChainError('already known');
    const sender = ptx.from.toString();
    let list = this.senders.get(sender);
    const old = list?.get(ptx.tx.nonce);
    if (old) {
      if (!outbids(ptx.tx, old.ptx.tx)) throw new ChainError('replacement transaction underpriced');
    } else {
      if ((list?.size ?? 0) >= this.limits.perSender) {
        throw new ChainError(`txpool is full for sender ${sender}: at most ${this.limits.perSender} transactions per account`);
      }
      if (this.hashes.size >= this.limits.global) throw new ChainError(`txpool is full: at most ${this.limits.global} transactions`);
    }
    if (!list) this.senders.set(sender, (list = new Map()));
    if (old) this.hashes.delete(old.ptx.hashHex);
    const entry = { ptx, seq: this.seq++ };
    list.set(ptx.tx.nonce, entry);
    this.hashes.set(ptx.hashHex, entry);
    return old?.ptx;
  }

  remove(hashHex: string): PendingTx | undefined {
    const e = this.hashes.get(hashHex);
    if (!e) return undefined;
    this.hashes.delete(hashHex);
    const sender = e.ptx.from.toString();
    const list = this.senders.get(sender)!;
    list.delete(e.ptx.tx.nonce);
    if (list.size === 0) this.senders.delete(sender);
    return e.ptx;
  }

  /** Take out every transaction whose nonce its sender's account has passed (`stateNonces`): it can never be mined. */
  dropStale(stateNonces: Map<string, bigint>): PendingTx[] {
    const stale: PendingTx[] = [];
    for (const [sender, list] of this.senders) {
      const nonce = stateNonces.get(sender) ?? 0n;
      for (const e of list.values()) if (e.ptx.tx.nonce < nonce) stale.push(e.ptx);
    }
    for (const p of stale) this.remove(p.hashHex);
    return stale;
  }

  clear(): PendingTx[] {
    const all = [...this.hashes.values()].map((e) => e.ptx);
    this.senders.clear();
    this.hashes.clear();
    return all;
  }

  senderAddresses(): string[] {
    return [...this.senders.keys()];
  }

  /** A sender's transactions split by the state nonce into pending (contiguous) and queued. */
  split(sender: string, stateNonce: bigint): { pending: PendingTx[]; queued: PendingTx[] } {
    const list = this.senders.get(sender);
    if (!list) return { pending: [], queued: [] };
    const sorted = [...list.values()].sort((a, b) => (a.ptx.tx.nonce < b.ptx.tx.nonce ? -1 : 1));
    const pending: PendingTx[] = [];
    const queued: PendingTx[] = [];
    let next = stateNonce;
    for (const e of sorted) {
      if (e.ptx.tx.nonce === next && queued.length === 0) {
        pending.push(e.ptx);
        next++;
      } else queued.push(e.ptx);
    }
    return { pending, queued };
  }

  /**
   * Every transaction split into pending and queued per sender (txpool_content and friends).
   * `stateNonces` holds each sender's account nonce; senders come out in address order.
   */
  content(stateNonces: Map<string, bigint>): PoolContent {
    const pending = new Map<string, PendingTx[]>();
    const queued = new Map<string, PendingTx[]>();
    for (const sender of [...this.senders.keys()].sort()) {
      const split = this.split(sender, stateNonces.get(sender) ?? 0n);
      if (split.pending.length) pending.set(sender, split.pending);
      if (split.queued.length) queued.set(sender, split.queued);
    }
    return { pending, queued };
  }

  /**
   * Executable transactions in block order: `fees` takes the best-tipping sender head each time,
   * `fifo` takes arrival order; either way each sender's nonces stay in sequence.
   */
  ordered(stateNonces: Map<string, bigint>, order: BlockOrder, baseFee: bigint | undefined): PendingTx[] {
    const queues: Entry[][] = [];
    for (const sender of this.senders.keys()) {
      const pending = this.split(sender, stateNonces.get(sender) ?? 0n).pending;
      if (pending.length) queues.push(pending.map((p) => this.hashes.get(p.hashHex)!));
    }
    const effTip = (e: Entry) => effectiveTip(e.ptx.tx, baseFee);
    // Between equal tips, the blob transaction offering more per blob gas goes first.
    const blobCap = (e: Entry) => ('maxFeePerBlobGas' in e.ptx.tx ? (e.ptx.tx.maxFeePerBlobGas as bigint) : 0n);
    const before = (a: Entry, b: Entry) => {
      const ta = effTip(a);
      const tb = effTip(b);
      if (ta !== tb) return ta > tb;
      const ba = blobCap(a);
      const bb = blobCap(b);
      return ba !== bb ? ba > bb : a.seq < b.seq;
    };
    const out: PendingTx[] = [];
    for (;;) {
      let best = -1;
      for (let i = 0; i < queues.length; i++) {
        if (queues[i].length === 0) continue;
        if (best < 0) best = i;
        else if (order === 'fifo' ? queues[i][0].seq < queues[best][0].seq : before(queues[i][0], queues[best][0])) best = i;
      }
      if (best < 0) return out;
      out.push(queues[best].shift()!.ptx);
    }
  }

  /** Every transaction, in arrival order. */
  all(): PendingTx[] {
    return [...this.hashes.values()].sort((a, b) => a.seq - b.seq).map((e) => e.ptx);
  }

  /** The transactions in arrival order (they are immutable and shared). */
  snapshot(): PendingTx[] {
    return this.all();
  }

  /** Hold exactly the transactions of a snapshot, in their arrival order. */
  restore(s: readonly PendingTx[]): void {
    this.clear();
    for (const ptx of s) this.add(ptx);
  }

  /** Empty the pool; each transaction is reported dropped. */
  reset(): void {
    for (const p of this.clear()) this.dropped(p, 'reset');
  }
}
