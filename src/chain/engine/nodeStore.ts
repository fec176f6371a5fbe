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
 */

import { bytesToUnprefixedHex, type BatchDBOp, type DB } from '@ethereumjs/util';

/** The part of a Map the trie's database uses: a NodeStore, a call worker's StoreReplica, or a Map. */
export interface NodeMap {
  get(key: string): Uint8Array | undefined;
  set(key: string, value: Uint8Array): unknown;
  delete(key: string): boolean;
}

/** Bytes per slab. A value over a quarter of this gets a slab of its own. */
export const SLAB = 1 << 20;
/** Each value is stored after its length, 4 bytes little-endian. */
const HEAD = 4;

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
  protected readonly where = new Map<string, number>();
  protected readonly slabs: Uint8Array[] = [];
  /** The array handed out for each long value (see readAt). */
  private readonly stable = new Map<number, Uint8Array>();
  /** The slab being filled (an index into `slabs`), and its first free byte. */
  private current = -1;
  private free = SLAB;

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
    if (at !== undefined && equal(readAt(this.slabs, at, this.stable), value)) return this;
    this.where.set(key, this.append(value));
    return this;
  }

  delete(key: string): boolean {
    const at = this.where.get(key);
    if (at === undefined) return false;
    this.stable.delete(at);
    return this.where.delete(key);
  }

  *entries(): IterableIterator<[string, Uint8Array]> {
    for (const [key, at] of this.where) yield [key, readAt(this.slabs, at, this.stable)];
  }

  /** Bytes written to slabs so far, forgotten entries included. */
  get used(): number {
    let n = 0;
    for (let i = 0; i < this.slabs.length; i++) n += i === this.current ? this.free : this.slabs[i]!.byteLength;
    return n;
  }

  private append(value: Uint8Array): number {
    const n = value.byteLength;
    let slab: Uint8Array;
    let at: number;
    if (HEAD + n > SLAB / 4) {
      slab = new Uint8Array(new SharedArrayBuffer(HEAD + n));
      this.slabs.push(slab);
      at = (this.slabs.length - 1) * SLAB;
    } else {
      if (this.free + HEAD + n > SLAB) {
        this.slabs.push(new Uint8Array(new SharedArrayBuffer(SLAB)));
        this.current = this.slabs.length - 1;
        this.free = 0;
      }
      slab = this.slabs[this.current]!;
      at = this.current * SLAB + this.free;
      this.free += HEAD + n;
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

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
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

const hexKey = (key: string | Uint8Array): string => (typeof key === 'string' ? key : bytesToUnprefixedHex(key));
