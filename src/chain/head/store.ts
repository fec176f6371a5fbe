/**
 * In-memory block, transaction and receipt store with indexes by number and hash.
 *
 * Besides real blocks it holds runs of empty blocks mined in one call (see mining/emptyRuns.ts): those
 * blocks are built when first asked for (and cached), and their hashes are computed in the
 * background meanwhile. Virtual blocks carry no transactions, so anything that scans for
 * transactions or logs can skip them with `realBlocks()` / `isVirtual()`.
 */
import type { EmptyRun } from './emptyRuns.js';
import type { MinedTx, StoredBlock } from '../core/types.js';

/** Materialized blocks of runs kept for reuse (the head is always kept). */
const VIRTUAL_CACHE = 512;
/** Background hashing works in slices of this many milliseconds between I/O turns. */
const HASH_SLICE_MS = 4;

export class BlockStore {
  /** Real blocks in number order (numbers skip the runs). */
  private readonly blocks: StoredBlock[] = [];
  /** Runs of empty blocks in number order; each directly follows its real template block. */
  private readonly runs: EmptyRun[] = [];
  /** Number of the last block plus one (blocks below `first` are not held). */
  private length = 0;
  /** Number of the first block held: 0, or the fork block on a forked chain. */
  private first = 0n;
  private readonly byHash = new Map<string, StoredBlock>();
  private readonly txByHash = new Map<string, MinedTx>();
  /** Mined blob transactions by the versioned hash of each of their blobs (the latest one holding it). */
  private readonly blobTxs = new Map<string, MinedTx>();
  private readonly virtualCache = new Map<bigint, StoredBlock>();
  private hashing: NodeJS.Immediate | undefined;

  get head(): StoredBlock {
    const run = this.runs[this.runs.length - 1];
    if (run !== undefined && run.last === BigInt(this.length - 1)) return this.virtual(run, run.count - 1);
    return this.blocks[this.blocks.length - 1];
  }

  get headNumber(): bigint {
    return BigInt(this.length - 1);
  }

  /** The run the head belongs to, if the head is a virtual block. */
  get headRun(): EmptyRun | undefined {
    const run = this.runs[this.runs.length - 1];
    return run !== undefined && run.last === BigInt(this.length - 1) ? run : undefined;
  }

  /** Number of the first block held (the fork block on a forked chain, else 0). */
  get base(): bigint {
    return this.first;
  }

  /** Make an empty store start at block `n` (a fork point). */
  rebase(n: bigint): void {
    if (this.blocks.length > 0 || this.runs.length > 0) throw new Error('only an empty store can be rebased');
    this.first = n;
    this.length = Number(n);
  }

  add(stored: StoredBlock): void {
    if (stored.number !== BigInt(this.length)) throw new Error(`block ${stored.number} out of order`);
    this.blocks.push(stored);
    this.length++;
    this.byHash.set(stored.hashHex, stored);
    for (const t of stored.txs) {
      this.txByHash.set(t.hashHex, t);
      if (t.sidecar) for (const h of blobHashesOf(t)) this.blobTxs.set(h, t);
    }
  }

  /** A mined blob by its versioned hash (lowercase hex), with its commitment and proofs. */
  blob(versionedHashHex: string): { blob: Uint8Array; commitment: Uint8Array; index: number; tx: MinedTx } | undefined {
    const t = this.blobTxs.get(versionedHashHex);
    if (t === undefined || t.sidecar === undefined) return undefined;
    const index = blobHashesOf(t).indexOf(versionedHashHex);
    return { blob: t.sidecar.blobs[index], commitment: t.sidecar.commitments[index], index, tx: t };
  }

  /** Append a run of empty blocks right after the current head (its template). */
  addRun(run: EmptyRun): void {
    if (run.first !== BigInt(this.length)) throw new Error(`empty-block run at ${run.first} out of order`);
    const prev = this.runs[this.runs.length - 1];
    run.virtualBefore = prev ? prev.virtualBefore + prev.count : 0;
    this.runs.push(run);
    this.length += run.count;
    this.hashInBackground();
  }

  /** Grow the run at the head by `more` blocks. */
  extendHeadRun(more: number): void {
    const run = this.headRun;
    if (!run) throw new Error('the head is not part of an empty-block run');
    this.virtualCache.delete(run.last);
    run.extend(more);
    this.length += more;
    this.hashInBackground();
  }

  byNumber(n: bigint): StoredBlock | undefined {
    if (n < this.first || n >= BigInt(this.length)) return undefined;
    if (this.runs.length === 0) return this.blocks[Number(n - this.first)];
    const run = this.runAtOrBefore(n);
    if (run === undefined) return this.blocks[Number(n - this.first)];
    if (n <= run.last) return this.virtual(run, Number(n - run.first));
    return this.blocks[Number(n - this.first) - run.virtualBefore - run.count];
  }

  /** True when block n is a lazily built empty block of a run (no transactions, no logs). */
  isVirtual(n: bigint): boolean {
    const run = this.runs.length === 0 ? undefined : this.runAtOrBefore(n);
    return run !== undefined && n <= run.last && n < BigInt(this.length);
  }

  byHashHex(hashHex: string): StoredBlock | undefined {
    const b = this.byHash.get(hashHex);
    if (b !== undefined || this.runs.length === 0 || hashHex.length !== 66) return b;
    const bytes = Buffer.from(hashHex.slice(2), 'hex');
    for (const run of this.runs) {
      const i = run.find(bytes);
      if (i >= 0) return this.virtual(run, i);
    }
    return undefined;
  }

  tx(hashHex: string): MinedTx | undefined {
    return this.txByHash.get(hashHex);
  }

  /** Drop every block above `n` (n = -1 drops all); returns the dropped real blocks, oldest first. */
  truncate(n: bigint): StoredBlock[] {
    if (n >= BigInt(this.length - 1)) return [];
    const keep = this.realCountUpTo(n);
    const dropped = this.blocks.splice(keep);
    for (const b of dropped) {
      this.byHash.delete(b.hashHex);
      for (const t of b.txs) {
        this.txByHash.delete(t.hashHex);
        if (t.sidecar) for (const h of blobHashesOf(t)) if (this.blobTxs.get(h) === t) this.blobTxs.delete(h);
      }
    }
    while (this.runs.length > 0 && this.runs[this.runs.length - 1].first > n) this.runs.pop();
    const run = this.runs[this.runs.length - 1];
    if (run !== undefined && run.last > n) run.shrink(Number(n - run.first) + 1);
    for (const k of this.virtualCache.keys()) if (k > n) this.virtualCache.delete(k);
    this.length = Number(n) + 1;
    return dropped;
  }

  /** Blocks in [from, to], inclusive (virtual ones are built). */
  range(from: bigint, to: bigint): StoredBlock[] {
    if (to < this.first) return [];
    if (this.runs.length === 0) return this.blocks.slice(Number((from < this.first ? this.first : from) - this.first), Number(to - this.first) + 1);
    const out: StoredBlock[] = [];
    const last = to < BigInt(this.length) ? to : BigInt(this.length - 1);
    for (let n = from < this.first ? this.first : from; n <= last; n++) out.push(this.byNumber(n)!);
    return out;
  }

  /** Real blocks (the only ones that can hold transactions) in [from, to], in order. */
  realBlocks(from: bigint, to: bigint): StoredBlock[] {
    if (to < this.first) return [];
    if (this.runs.length === 0) return this.blocks.slice(Number((from < this.first ? this.first : from) - this.first), Number(to - this.first) + 1);
    return this.blocks.slice(this.realCountUpTo(from - 1n), this.realCountUpTo(to));
  }

  /** The runs of empty blocks, in order (for state dumps). */
  emptyRuns(): readonly EmptyRun[] {
    return this.runs;
  }

  /** Stop background work (node shutdown). */
  close(): void {
    if (this.hashing) clearImmediate(this.hashing);
    this.hashing = undefined;
  }

  // ---------------------------------------------------------------- internals

  /** Number of real blocks with number <= n. */
  private realCountUpTo(n: bigint): number {
    if (n < this.first) return 0;
    if (this.runs.length === 0) return Math.min(Number(n - this.first) + 1, this.blocks.length);
    const run = this.runAtOrBefore(n);
    if (run === undefined) return Math.min(Number(n - this.first) + 1, this.blocks.length);
    const virtualUpTo = run.virtualBefore + (n <= run.last ? Number(n - run.first) + 1 : run.count);
    return Math.min(Number(n - this.first) + 1 - virtualUpTo, this.blocks.length);
  }

  /** The last run starting at or before block n. */
  private runAtOrBefore(n: bigint): EmptyRun | undefined {
    const runs = this.runs;
    let lo = 0;
    let hi = runs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (runs[mid].first <= n) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? undefined : runs[lo - 1];
  }

  private virtual(run: EmptyRun, i: number): StoredBlock {
    const n = run.first + BigInt(i);
    let b = this.virtualCache.get(n);
    if (b !== undefined) return b;
    b = run.materialize(i);
    if (this.virtualCache.size >= VIRTUAL_CACHE) {
      // Evict the oldest entry that is not the head.
      const headNumber = BigInt(this.length - 1);
      for (const k of this.virtualCache.keys()) {
        if (k !== headNumber) {
          this.virtualCache.delete(k);
          break;
        }
      }
    }
    this.virtualCache.set(n, b);
    return b;
  }

  /** Compute run hashes in short slices while the event loop is otherwise idle. */
  private hashInBackground(): void {
    if (this.hashing) return;
    const slice = () => {
      this.hashing = undefined;
      const end = performance.now() + HASH_SLICE_MS;
      for (const run of this.runs) {
        while (!run.complete) {
          run.advance(16);
          if (performance.now() >= end) break;
        }
        if (performance.now() >= end) break;
      }
      if (this.runs.some((r) => !r.complete)) {
        this.hashing = setImmediate(slice);
        this.hashing.unref();
      }
    };
    this.hashing = setImmediate(slice);
    this.hashing.unref();
  }
}

/** The versioned hashes of a mined blob transaction, lowercase hex. */
function blobHashesOf(t: MinedTx): string[] {
  return ((t.tx as { blobVersionedHashes?: string[] }).blobVersionedHashes ?? []).map((h) => h.toLowerCase());
}
