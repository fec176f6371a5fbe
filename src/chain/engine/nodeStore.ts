/**
 * The state trie's node store: trie nodes and contract code as bytes by hex key, packed one after
 * another in large slabs. A Map of one Uint8Array per node cost about 450 bytes per entry besides
 * the node itself (the array, its ArrayBuffer, the backing store's bookkeeping and its own malloc
 * block, all kept for the life of the chain); here an entry is its key and a number. A read returns
 * a view into its slab: callers only read it, and nothing in a slab is ever overwritten. Slabs are
 * shared memory, so a call worker's replica reads these very bytes (exec/offload/replica.ts).
 *
 * Keys are hashes of their values (node hashes, code hashes), so a key written again brings the
 * same bytes, and the store keeps the first copy (other bytes would take a new place). Deleting a
 * key forgets it; its bytes stay in their slab (the engine deletes nothing while node pruning is
 * off, as it is here).
 *
 * Snapshots: `mark()` notes where the store stands and starts a journal of the entries changed
 * from then on; `rewind(mark)` undoes them and lets go of the slabs begun since, so what a reverted
 * chain wrote does not stay in memory. Bytes are never written twice: after a rewind the next value
 * starts a fresh slab, so a view read before it still holds the bytes it read.
 */

import { bytesToUnprefixedHex, equalsBytes, type BatchDBOp, type DB } from '@ethereumjs/util';
import { firstEntries } from './maps.js';

/** The part of a Map the trie's database uses: a NodeStore, a call worker's StoreReplica, or a Map. */
export interface NodeMap {
  get(key: string): Uint8Array | undefined;
  set(key: string, value: Uint8Array): unknown;
  delete(key: string): boolean;
}

/**
 * Bytes per slab, and the span of a slab's places: a value's place is slab index × SLAB + offset.
 * 32 MiB is the largest threshold glibc's malloc moves its mmap threshold up to, so a slab is
 * always a mapping of its own, never part of malloc's heap: its pages cost memory only once
 * written, and a slab let go (a reverted snapshot) goes back to the system instead of leaving a
 * hole in the heap. A value over a quarter of a slab gets a slab of its own.
 */
export const SLAB = 1 << 25;
/** Each value is stored after its length, 4 bytes little-endian. */
const HEAD = 4;
/** A journal entry's `prior` for a key that had no value. */
const NONE = -1;

/** Where a store stood: see NodeStore.mark. */
export interface StoreMark {
  /** Journal entries before it. */
  readonly entries: number;
  /** Of those, entries that changed or deleted a key (not new ones). */
  readonly rewrites: number;
  /** NodeStore.reinserted then. */
  readonly reinserted: number;
  /** Slabs begun before it. */
  readonly slabs: number;
  /** The slab being filled then (-1: none), and its first free byte. */
  readonly current: number;
  readonly free: number;
}

/**
 * Values longer than any trie node (a full branch node is 532 bytes) are contract code, and the
 * same code must come back as the same array: the interpreter keeps its analysis of a code array
 * by identity (engine/loop/code.ts), and a call that is reverted takes the code out of the state
 * manager's cache again, so the next call reads the store anew.
 */
const STABLE_MIN = 533;

/**
 * The value stored at `at` (slab index × SLAB + offset of its length). `stable` keeps the one array
 * handed out for each long value.
 */
export function readAt(slabs: readonly Uint8Array[], at: number, stable: Map<number, Uint8Array>): Uint8Array {
  const slab = slabs[Math.floor(at / SLAB)]!;
  const start = at % SLAB;
  const n = (slab[start]! | (slab[start + 1]! << 8) | (slab[start + 2]! << 16)) + slab[start + 3]! * 0x1000000;
  // The constructor, not subarray(): subarray looks up a species constructor on every call.
  if (n < STABLE_MIN) return new Uint8Array(slab.buffer, start + HEAD, n);
  let value = stable.get(at);
  if (value === undefined) {
    value = new Uint8Array(slab.buffer, start + HEAD, n);
    stable.set(at, value);
  }
  return value;
}

export class NodeStore implements NodeMap {
  /** Where each value starts: slab index × SLAB + offset of its length. */
  protected where = new Map<string, number>();
  protected readonly slabs: Uint8Array[] = [];
  /** The array handed out for each long value (see readAt). */
  private readonly stable = new Map<number, Uint8Array>();
  /** Bytes written into each slab. */
  private readonly filled: number[] = [];
  /** The slab being filled (an index into `slabs`), and its first free byte. */
  private current = -1;
  private free = SLAB;

  /** Entries changed since the oldest live mark, each with where its value was before (or NONE). */
  private journal: { keys: string[]; prior: number[]; rewrites: number } | undefined;
  /**
   * Keys a rewind put back after they had been deleted: each went to the end of the map's order,
   * so the map's order no longer says which keys came after an earlier mark.
   */
  private reinserted = 0;

  /** `slabBytes`: bytes of each slab (at most SLAB; tests take small ones to fill many). */
  constructor(private readonly slabBytes = SLAB) {
    if (slabBytes > SLAB) throw new RangeError(`a slab holds at most ${SLAB} bytes`);
  }

  get size(): number {
    return this.where.size;
  }

  has(key: string): boolean {
    return this.where.has(key);
  }

  get(key: string): Uint8Array | undefined {
    const at = this.where.get(key);
    return at === undefined ? undefined : readAt(this.slabs, at, this.stable);
  }

  set(key: string, value: Uint8Array): this {
    const at = this.where.get(key);
    if (at !== undefined) {
      if (equalsBytes(readAt(this.slabs, at, this.stable), value)) return this;
      this.stable.delete(at);
    }
    this.note(key, at);
    this.where.set(key, this.append(value));
    return this;
  }

  delete(key: string): boolean {
    const at = this.where.get(key);
    if (at === undefined) return false;
    this.note(key, at);
    this.stable.delete(at);
    return this.where.delete(key);
  }

  /**
   * Where the store stands now, for `rewind`; entries changed from now on are journaled until
   * `endJournal`. Marks are rewound newest first, as snapshots are reverted.
   */
  mark(): StoreMark {
    this.journal ??= { keys: [], prior: [], rewrites: 0 };
    const { keys, rewrites } = this.journal;
    return { entries: keys.length, rewrites, reinserted: this.reinserted, slabs: this.slabs.length, current: this.current, free: this.free };
  }

  /**
   * Back to `mark`: every entry changed since is as it was then, and the slabs begun since are let
   * go (they hold only values written since). Later marks are used up. Returns how many entries
   * were undone.
   */
  rewind(mark: StoreMark): number {
    const journal = this.journal;
    if (journal === undefined || journal.keys.length <= mark.entries) return 0;
    const { keys, prior } = journal;
    const undone = keys.length - mark.entries;
    const kept = this.where.size - undone;
    const onlyNew = journal.rewrites === mark.rewrites;
    const where = this.where;
    // Copying an entry into a new map costs about three times what deleting one does.
    if (onlyNew && this.reinserted === mark.reinserted && undone > 3 * kept) {
      // Only new keys since the mark, the last ones in the map's order, and most of the store.
      this.where = firstEntries(where, kept);
      this.rebuilt();
    } else {
      // Newest first: deleting a map's last entries first is about twice as fast.
      if (onlyNew) for (let i = keys.length - 1; i >= mark.entries; i--) where.delete(keys[i]!);
      else
        for (let i = keys.length - 1; i >= mark.entries; i--) {
          const key = keys[i]!;
          if (prior[i] === NONE) where.delete(key);
          else {
            if (!where.has(key)) this.reinserted++;
            where.set(key, prior[i]!);
          }
        }
      this.changed(keys, mark.entries);
    }
    keys.length = prior.length = mark.entries;
    journal.rewrites = mark.rewrites;
    this.slabs.length = this.filled.length = mark.slabs;
    for (const at of this.stable.keys()) if (writtenSince(mark, at)) this.stable.delete(at);
    // Bytes are written once (replicas and the views handed out may still read the undone
    // values): the slab being filled at the mark goes on from the furthest byte ever written in
    // it, not from where it stood at the mark. Beginning a new 32 MiB slab instead cost ~30-60 µs
    // at every revert (a suite's loadFixture reverts once per test).
    this.current = mark.current;
    this.free = mark.current < 0 ? SLAB : this.filled[mark.current]!;
    this.slabsDropped(mark.slabs);
    return undone;
  }

  /**
   * Let go of everything (a chain reset: the old chain's nodes are never read again). Marks are
   * used up; replicas get the empty index.
   */
  clear(): void {
    this.where = new Map();
    this.slabs.length = this.filled.length = 0;
    this.stable.clear();
    this.current = -1;
    this.free = SLAB;
    this.journal = undefined;
    this.reinserted = 0;
    this.rebuilt();
    this.slabsDropped(0);
  }

  /** No mark is live any more: stop journaling. */
  endJournal(): void {
    this.journal = undefined;
  }

  /** Entries `keys[from]` on were undone by a rewind (a RecordedStore tells its replicas). */
  protected changed(_keys: readonly string[], _from: number): void {}

  /** The index was rebuilt by a rewind: replicas need all of it again. */
  protected rebuilt(): void {}

  /** Slabs from `_count` on were let go by a rewind. */
  protected slabsDropped(_count: number): void {}

  private note(key: string, at: number | undefined): void {
    if (this.journal === undefined) return;
    this.journal.keys.push(key);
    this.journal.prior.push(at ?? NONE);
    if (at !== undefined) this.journal.rewrites++;
  }

  *entries(): IterableIterator<[string, Uint8Array]> {
    for (const [key, at] of this.where) yield [key, readAt(this.slabs, at, this.stable)];
  }

  /** Bytes written to slabs so far, forgotten entries included. */
  get used(): number {
    let n = 0;
    for (const bytes of this.filled) n += bytes;
    return n;
  }

  private append(value: Uint8Array): number {
    const n = value.byteLength;
    let slab: Uint8Array;
    let at: number;
    if (HEAD + n > this.slabBytes / 4) {
      slab = new Uint8Array(new SharedArrayBuffer(HEAD + n));
      this.slabs.push(slab);
      this.filled.push(HEAD + n);
      at = (this.slabs.length - 1) * SLAB;
    } else {
      if (this.free + HEAD + n > this.slabBytes) {
        this.slabs.push(new Uint8Array(new SharedArrayBuffer(this.slabBytes)));
        this.filled.push(0);
        this.current = this.slabs.length - 1;
        this.free = 0;
      }
      slab = this.slabs[this.current]!;
      at = this.current * SLAB + this.free;
      this.free += HEAD + n;
      this.filled[this.current] = this.free;
    }
    const start = at % SLAB;
    slab[start] = n & 0xff;
    slab[start + 1] = (n >>> 8) & 0xff;
    slab[start + 2] = (n >>> 16) & 0xff;
    slab[start + 3] = n >>> 24;
    slab.set(value, start + HEAD);
    return at;
  }
}

/**
 * The trie's database over a node store. The trie's checkpoint layer hands it hex keys; a byte key
 * is converted the way ethereumjs's MapDB converts it.
 */
export class NodeDB implements DB<string, Uint8Array> {
  constructor(readonly nodes: NodeMap) {}

  async get(key: string | Uint8Array): Promise<Uint8Array | undefined> {
    return this.nodes.get(hexKey(key));
  }

  async put(key: string | Uint8Array, value: Uint8Array): Promise<void> {
    this.nodes.set(hexKey(key), value);
  }

  async del(key: string | Uint8Array): Promise<void> {
    this.nodes.delete(hexKey(key));
  }

  async batch(ops: BatchDBOp<string, Uint8Array>[]): Promise<void> {
    for (const op of ops) {
      if (op.type === 'put') this.nodes.set(hexKey(op.key), op.value);
      else this.nodes.delete(hexKey(op.key));
    }
  }

  shallowCopy(): NodeDB {
    return new NodeDB(this.nodes);
  }

  async open(): Promise<void> {}
}

/** Whether the value at `at` was written after `mark`. */
function writtenSince(mark: StoreMark, at: number): boolean {
  const slab = Math.floor(at / SLAB);
  return slab >= mark.slabs || (slab === mark.current && at % SLAB >= mark.free);
}

/** Drop the arrays handed out for values in slabs from `slab` on (those slabs were let go). */
export function forgetFrom(stable: Map<number, Uint8Array>, slab: number): void {
  for (const at of stable.keys()) if (at >= slab * SLAB) stable.delete(at);
}

const hexKey = (key: string | Uint8Array): string => (typeof key === 'string' ? key : bytesToUnprefixedHex(key));
