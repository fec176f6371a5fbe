/**
 * The addresses and storage slots behind the state trie's hashed keys.
 *
 * The state trie stores accounts under keccak(address) and slots under keccak(slot), so the trie
 * alone cannot say which accounts exist. A state dump needs them: the tries (NodeTrie) tell
 * `written` below of every 20-byte (address) and 32-byte (slot) key they store a value under.
 *
 * A key in a state was written there, so the preimages recorded after a snapshot belong only to
 * what a revert to it drops: `mark` and `rewind` let go of them with the trie nodes (see NodeStore).
 */
import { bytesToHex } from '@ethereumjs/util';
import { firstEntries } from './maps.js';

export class Preimages {
  private byHash = new Map<string, Uint8Array>();
  /** Hashes recorded since the oldest live mark, in order. */
  private added: string[] | undefined;

  /**
   * Note that `key` (an address or a slot) was written into a trie under `hashed`, its keccak256.
   * Only writes are noted: a key read and never written is in no state a dump could list, and
   * noting reads kept one entry for every address or slot any request ever asked about.
   */
  readonly written = (hashed: Uint8Array, key: Uint8Array): void => {
    if (key.length !== 20 && key.length !== 32) return;
    const k = bytesToHex(hashed);
    if (!this.byHash.has(k)) {
      this.byHash.set(k, key.slice());
      this.added?.push(k);
    }
  };

  /** The key whose keccak is `hashedKeyHex` (0x-prefixed lowercase hex), if it was ever written. */
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
