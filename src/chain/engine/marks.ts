/** The entries a fork's local trie uses to record erasures of upstream data (see state.ts). */
import { RLP } from '@ethereumjs/rlp';
import type { StorageDump } from '@ethereumjs/common';
import { type Account, concatBytes, equalsBytes, hexToBytes, utf8ToBytes } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';

/** Value of every mark entry: 33 bytes, longer than any storage value. */
export const MARK = RLP.encode(new Uint8Array(33).fill(0xfb));
/** Key of the entry saying "slots not in this trie are the upstream's". */
export const UPSTREAM_MARK = new Uint8Array(33).fill(0xfe);
export const ZERO_MARK_PREFIX = new Uint8Array([0xfd]);
/** Code hash of a tombstone (no code has it; nothing is stored under it). */
export const TOMBSTONE_CODE_HASH = keccak_256(utf8ToBytes('node-rpc fork: account deleted locally'));

export const zeroMark = (key: Uint8Array) => concatBytes(ZERO_MARK_PREFIX, key);

/** A tombstone reads as "no account". */
export function visible(account: Account): Account | undefined {
  return equalsBytes(account.codeHash, TOMBSTONE_CODE_HASH) ? undefined : account;
}

export function isMark(valueHex: string | null): boolean {
  if (!valueHex) return false;
  return (RLP.decode(hexToBytes(('0x' + valueHex.replace(/^0x/, '')) as `0x${string}`)) as Uint8Array).length > 32;
}

export function withoutMarks(dump: StorageDump): StorageDump {
  for (const [k, v] of Object.entries(dump)) if (isMark(v)) delete dump[k];
  return dump;
}
