/** What tests of the engine alone (src/chain/engine) share: a chain with no history, and addresses and slots by number. */
import { Address, ValueEncoding, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { keccak256 } from '../../src/chain/core/keccak.js';
import { NodeDB, NodeStore } from '../../src/chain/engine/nodeStore.js';

/** The EVM's block history for an engine without blocks: any BLOCKHASH lookup fails. */
export const NO_HISTORY = {
  getBlock: async (): Promise<never> => {
    throw new Error('no history');
  },
  putBlock: async () => {},
  shallowCopy() {
    return NO_HISTORY;
  },
};

/** The address whose 20 bytes are `n`. */
export const address = (n: number) => new Address(hexToBytes(`0x${n.toString(16).padStart(40, '0')}`));

/** The 32-byte storage slot `n`. */
export const slot = (n: number) => setLengthLeft(new Uint8Array([n]), 32);

/** Options of a trie over a node store of its own (or the one given), keys not hashed. */
export const trieOpts = (store = new NodeStore()) => ({ db: new NodeDB(store), valueEncoding: ValueEncoding.Bytes, useKeyHashing: false, useKeyHashingFunction: keccak256 });

/** A deterministic stream of pseudo-random numbers. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s;
  };
}

/** Count the puts and deletes made through `proto` (a trie class's prototype) while `fn` runs. */
export async function countWrites(proto: object, fn: () => Promise<void>): Promise<number> {
  let writes = 0;
  const p = proto as { put: (...a: unknown[]) => Promise<void>; del: (...a: unknown[]) => Promise<void> };
  const { put, del } = p;
  p.put = function (this: unknown, ...a: unknown[]) {
    writes++;
    return put.apply(this, a);
  };
  p.del = function (this: unknown, ...a: unknown[]) {
    writes++;
    return del.apply(this, a);
  };
  try {
    await fn();
  } finally {
    p.put = put;
    p.del = del;
  }
  return writes;
}
