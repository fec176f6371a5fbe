/**
 * The addresses and storage slots behind the state trie's hashed keys.
 *
 * The state trie stores accounts under keccak(address) and slots under keccak(slot), so the trie
 * alone cannot say which accounts exist. A state dump needs them: the trie's key hashing goes
 * through `hash` below, which remembers every 20-byte (address) and 32-byte (slot) input.
 *
 * A key in a state was hashed when it was written there, so the preimages recorded after a
 * snapshot belong only to what a revert to it drops: `mark` and `rewind` let go of them with the
 * trie nodes (see NodeStore).
 */
import { bytesToHex } from '@ethereumjs/util';
import { keccak256 } from './keccak.js';
import { firstEntries } from './maps.js';

export class Preimages {
  private byHash = new Map<string, Uint8Array>();
  /** Hashes recorded since the oldest live mark, in order. */
  private added: string[] | undefined;

  /**
   * keccak256 that records the preimages of address and slot keys: the tries' hashing function,
   * of keys and of nodes alike (the WebAssembly keccak, about 7× the JS one on these sizes).
   */
  readonly hash = (msg: Uint8Array): Uint8Array => {
    const h = keccak256(msg);
    if (msg.length === 20 || msg.length === 32) {
      const k = bytesToHex(h);
      if (!this.byHash.has(k)) {
        this.byHash.set(k, msg.slice());
        this.added?.push(k);
      }
    }
    return h;
  };

  /** The key whose keccak is `hashedKeyHex` (0x-prefixed lowercase hex), if it was ever hashed. */
  get(hashedKeyHex: string): Uint8Array | undefined {
    return this.byHash.get(hashedKeyHex);
  }

  get size(): number {
    return this.byHash.size;
  }

  /** Forget every preimage (a chain reset); marks are used up. */
  clear(): void {
    this.byHash = new Map();
    this.added = undefined;
  }

  /** Where the record stands now; preimages recorded from now on are noted until `endJournal`. */
  mark(): number {
    this.added ??= [];
    return this.added.length;
  }

  /** Forget the preimages recorded since `mark` (later marks are used up). */
  rewind(mark: number): void {
    const added = this.added;
    if (added === undefined || added.length <= mark) return;
    const kept = this.byHash.size - (added.length - mark);
    // The preimages since the mark are the last ones in the map's order.
    if (added.length - mark > kept) this.byHash = firstEntries(this.byHash, kept);
    else {
      for (let i = mark; i < added.length; i++) this.byHash.delete(added[i]!);
    }
    added.length = mark;
  }

  /** No mark is live any more. */
  endJournal(): void {
    this.added = undefined;
  }
}
