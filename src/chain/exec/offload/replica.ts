/**
 * The state trie's node store, recorded for replicas. Trie nodes and code are stored under their
 * hash and never change, so a worker that can read every entry written so far can open any state
 * root the node can. The store's slabs are shared memory and are never overwritten: a replica
 * holds the same slabs and an index of its own, so what crosses to a worker is keys and where
 * their values are, never the bytes. While a replica exists, the keys written or deleted are
 * noted, and `take()` sends each once, with where its value is at that moment. A rewind (a
 * reverted snapshot) is noted the same way: the entries it undid, and the slabs it let go, which
 * the replica lets go too before it takes the slabs begun after.
 */
import { NodeStore, forgetFrom, readAt, type NodeMap } from '../../engine/nodeStore.js';

/** A store value: a trie node or a contract's code, as bytes (the engine's trie stores bytes). */
export type StoreValue = Uint8Array;

/** `at[i]` of a deletion. */
const DELETED = -1;

/** What a replica needs to catch up with the store. */
export interface StoreWrites {
  /** The whole store follows (a rewind rebuilt its index): the replica starts over from it. */
  reset?: true;
  /** Slabs from this index on were let go (a rewind); those in `slabs` take their places. */
  dropFrom?: number;
  /** Slabs new since the last writes, in order (views of shared memory: they cross uncopied). */
  slabs: Uint8Array[];
  keys: string[];
  /** Where `keys[i]`'s value now is (slab index × SLAB + offset), or DELETED. */
  at: Float64Array;
}

export class RecordedStore extends NodeStore {
  /** Keys written or deleted since the last `take()`, while a replica exists. */
  private logged: Set<string> | undefined;
  /** Slabs the replicas have. */
  private sent = 0;
  /** The lowest slab let go since the last `take()`, when replicas hold it. */
  private dropFrom: number | undefined;
  /** Replicas need the whole store again. */
  private reset = false;

  override set(key: string, value: StoreValue): this {
    this.logged?.add(key);
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    this.logged?.add(key);
    return super.delete(key);
  }

  protected override changed(keys: readonly string[], from: number): void {
    const logged = this.logged;
    if (logged !== undefined) for (let i = from; i < keys.length; i++) logged.add(keys[i]!);
  }

  protected override rebuilt(): void {
    if (this.logged === undefined) return;
    this.reset = true;
    this.logged.clear();
  }

  protected override slabsDropped(count: number): void {
    if (this.logged === undefined || count >= this.sent) return;
    this.sent = count;
    this.dropFrom = Math.min(this.dropFrom ?? count, count);
  }

  /** Start logging writes; every entry so far. */
  startLog(): StoreWrites {
    this.logged = new Set();
    return this.all();
  }

  private all(): StoreWrites {
    this.sent = 0;
    this.dropFrom = undefined;
    this.reset = false;
    return this.writes([...this.where.keys()]);
  }

  /** The writes since the last call (or since `startLog`); undefined when there are none. */
  take(): StoreWrites | undefined {
    const logged = this.logged;
    if (logged === undefined) return undefined;
    if (this.reset) {
      logged.clear();
      return { ...this.all(), reset: true };
    }
    if (logged.size === 0 && this.dropFrom === undefined) return undefined;
    const keys = [...logged];
    logged.clear();
    return this.writes(keys);
  }

  stopLog(): void {
    this.logged = undefined;
    this.dropFrom = undefined;
    this.reset = false;
  }

  private writes(keys: string[]): StoreWrites {
    const at = new Float64Array(keys.length);
    for (let i = 0; i < keys.length; i++) at[i] = this.where.get(keys[i]!) ?? DELETED;
    const slabs = this.slabs.slice(this.sent);
    const dropFrom = this.dropFrom;
    this.sent = this.slabs.length;
    this.dropFrom = undefined;
    return dropFrom === undefined ? { slabs, keys, at } : { dropFrom, slabs, keys, at };
  }
}

/**
 * A call worker's copy of the store: the node's slabs and an index built from its writes. Entries
 * the worker's own engine writes (none, as calls are reverted) stay in a map of its own.
 */
export class StoreReplica implements NodeMap {
  private readonly where = new Map<string, number>();
  private readonly slabs: Uint8Array[] = [];
  private readonly own = new Map<string, Uint8Array>();
  private readonly stable = new Map<number, Uint8Array>();

  apply(writes: StoreWrites): void {
    if (writes.reset) {
      this.where.clear();
      this.slabs.length = 0;
      this.stable.clear();
    }
    if (writes.dropFrom !== undefined) {
      this.slabs.length = writes.dropFrom;
      forgetFrom(this.stable, writes.dropFrom);
    }
    for (const slab of writes.slabs) this.slabs.push(slab);
    const { keys, at } = writes;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const old = this.where.get(key);
      if (old !== undefined) this.stable.delete(old);
      if (at[i] === DELETED) this.where.delete(key);
      else this.where.set(key, at[i]!);
    }
  }

  get size(): number {
    return this.where.size + this.own.size;
  }

  get(key: string): Uint8Array | undefined {
    const at = this.where.get(key);
    return at === undefined ? this.own.get(key) : readAt(this.slabs, at, this.stable);
  }

  set(key: string, value: Uint8Array): this {
    this.where.delete(key);
    this.own.set(key, value.slice());
    return this;
  }

  delete(key: string): boolean {
    const had = this.where.delete(key);
    return this.own.delete(key) || had;
  }
}
