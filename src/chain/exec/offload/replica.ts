/**
 * The state trie's node store (the node's trie nodes and code, as bytes by hex key), recorded for
 * replicas. Trie nodes and code are stored under their hash and never change, so a worker holding
 * every entry written so far can open any state root the node can. While a replica exists, every
 * write is logged until the next `take()`.
 */

/** A store value: a trie node or a contract's code, as bytes (the engine's trie stores bytes). */
export type StoreValue = Uint8Array;

/** `lengths[i]` of a deletion. */
const DELETED = 0xffffffff;

/**
 * Writes in order, packed for a worker: the values one after another in `data`, `lengths[i]` bytes
 * for `keys[i]` (DELETED for a deletion). One buffer clones as one copy, and a replica's values are
 * views into it: no allocation per entry in the worker, and all of it freed at once with the worker.
 */
export interface StoreWrites {
  keys: string[];
  lengths: Uint32Array;
  data: Uint8Array;
}

export class RecordedMap extends Map<string, StoreValue> {
  private logKeys: string[] | undefined;
  private logValues: (StoreValue | undefined)[] = [];

  override set(key: string, value: StoreValue): this {
    // A view into a larger buffer (code cut from EVM memory) would keep all of that buffer alive:
    // keep its own bytes.
    if (value.byteLength !== value.buffer.byteLength) value = value.slice();
    if (this.logKeys !== undefined) {
      this.logKeys.push(key);
      this.logValues.push(value);
    }
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    if (this.logKeys !== undefined) {
      this.logKeys.push(key);
      this.logValues.push(undefined);
    }
    return super.delete(key);
  }

  /** Start logging writes; every entry so far. */
  startLog(): StoreWrites {
    this.logKeys = [];
    this.logValues = [];
    return pack([...this.keys()], [...this.values()]);
  }

  /** The writes since the last call (or since `startLog`); undefined when there are none. */
  take(): StoreWrites | undefined {
    const keys = this.logKeys;
    if (keys === undefined || keys.length === 0) return undefined;
    const writes = pack(keys, this.logValues);
    this.logKeys = [];
    this.logValues = [];
    return writes;
  }

  stopLog(): void {
    this.logKeys = undefined;
    this.logValues = [];
  }
}

function pack(keys: string[], values: (StoreValue | undefined)[]): StoreWrites {
  const lengths = new Uint32Array(keys.length);
  let total = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    lengths[i] = v === undefined ? DELETED : v.byteLength;
    if (v !== undefined) total += v.byteLength;
  }
  const data = new Uint8Array(total);
  let at = 0;
  for (const v of values) {
    if (v === undefined) continue;
    data.set(v, at);
    at += v.byteLength;
  }
  return { keys, lengths, data };
}

/** Apply `writes` to a replica; its values are views into `writes.data`. */
export function applyWrites(map: Map<string, StoreValue>, writes: StoreWrites): void {
  const { keys, lengths, data } = writes;
  let at = 0;
  for (let i = 0; i < keys.length; i++) {
    const n = lengths[i]!;
    if (n === DELETED) {
      map.delete(keys[i]!);
      continue;
    }
    map.set(keys[i]!, data.subarray(at, at + n));
    at += n;
  }
}
