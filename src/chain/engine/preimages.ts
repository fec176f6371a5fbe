/**
 * The addresses and storage slots behind the state trie's hashed keys.
 *
 * The state trie stores accounts under keccak(address) and slots under keccak(slot), so the trie
 * alone cannot say which accounts exist. A state dump needs them: the trie's key hashing goes
 * through `hash` below, which remembers every 20-byte (address) and 32-byte (slot) input.
 */
import { bytesToHex } from '@ethereumjs/util';
import { keccak256 } from './keccak.js';

export class Preimages {
  private readonly byHash = new Map<string, Uint8Array>();

  /**
   * keccak256 that records the preimages of address and slot keys: the tries' hashing function,
   * of keys and of nodes alike (the WebAssembly keccak, about 7× the JS one on these sizes).
   */
  readonly hash = (msg: Uint8Array): Uint8Array => {
    const h = keccak256(msg);
    if (msg.length === 20 || msg.length === 32) {
      const k = bytesToHex(h);
      if (!this.byHash.has(k)) this.byHash.set(k, msg.slice());
    }
    return h;
  };

  /** The key whose keccak is `hashedKeyHex` (0x-prefixed lowercase hex), if it was ever hashed. */
  get(hashedKeyHex: string): Uint8Array | undefined {
    return this.byHash.get(hashedKeyHex);
  }
}
