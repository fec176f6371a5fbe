/**
 * The state trie's node store, recorded for replicas. Trie nodes and code are stored under their
 * hash and never change, so a worker holding every entry written so far can open any state root
 * the node can. While a replica exists, every write is logged until the next `take()`.
 */

/** A store value as the trie keeps it (hex text by default; bytes with a bytes encoding). */
export type StoreValue = string | Uint8Array;

/** Writes in order: `values[i]` undefined marks a deletion of `keys[i]`. */
export interface StoreWrites {
  keys: string[];
  values: (StoreValue | undefined)[];
}

export class RecordedMap extends Map<string, StoreValue> {
  private log: StoreWrites | undefined;

  override set(key: string, value: StoreValue): this {
    if (this.log !== undefined) {
      this.log.keys.push(key);
      this.log.values.push(value);
    }
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    if (this.log !== undefined) {
      this.log.keys.push(key);
      this.log.values.push(undefined);
    }
    return super.delete(key);
  }

  /** Start logging writes; every entry so far. */
  startLog(): StoreWrites {
    this.log = { keys: [], values: [] };
    return { keys: [...this.keys()], values: [...this.values()] };
  }

  /** The writes since the last call (or since `startLog`); undefined when there are none. */
  take(): StoreWrites | undefined {
    const log = this.log;
    if (log === undefined || log.keys.length === 0) return undefined;
    this.log = { keys: [], values: [] };
    return log;
  }

  stopLog(): void {
    this.log = undefined;
  }
}

/** Apply `writes` to a replica. */
export function applyWrites(map: Map<string, StoreValue>, writes: StoreWrites): void {
  for (let i = 0; i < writes.keys.length; i++) {
    const v = writes.values[i];
    if (v === undefined) map.delete(writes.keys[i]!);
    else map.set(writes.keys[i]!, v);
  }
}
