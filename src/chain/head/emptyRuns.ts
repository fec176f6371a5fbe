/**
 * Runs of empty blocks mined in one call (anvil_mine / hardhat_mine of many blocks), kept as a
 * recipe instead of a list of blocks.
 *
 * A run follows a real, empty "template" block T: its block i (0-based) is T's header with
 * number T+1+i, timestamp T.timestamp + interval·(i+1), the base fee (and excess blob gas) an
 * empty parent leads to, and parentHash the hash of block i-1 (T's hash for i = 0). Every other
 * field (state root, roots of the empty lists, gas limit, coinbase, prevRandao) is T's, which is
 * exactly what building an empty block on the unchanged state gives.
 *
 * Every block served from a run is a real header: its hash is keccak of its RLP and its
 * parentHash is the previous block's hash. Hashes form a chain, so block i's hash needs all
 * before it; they are computed forward on demand (and in the background, see BlockStore), keeping
 * only a checkpoint hash every CHECKPOINT blocks and a 32-bit fingerprint per block: a block's
 * hash is recomputed from the checkpoint below it, and a lookup by hash scans the fingerprints.
 * Memory is about 5 bytes per block.
 */
import { createBlockFromBytesArray, createBlockHeaderFromBytesArray, type Block, type BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, bytesToHex, createAddressFromString, equalsBytes } from '@ethereumjs/util';
import { keccak256 } from '../core/keccak.js';
import type { StoredBlock } from '../core/types.js';

/** Fewer empty blocks than this are mined one by one (each gets its own `block` event). */
export const LAZY_RUN_MIN = 16;

/** Blocks between stored checkpoint hashes. */
const CHECKPOINT = 32;

/**
 * System contracts a block calls (EIP-4788 beacon roots, EIP-2935 block hashes, EIP-7002 and
 * EIP-7251 request queues). While none has code, an empty block leaves the state untouched.
 */
const SYSTEM_CONTRACTS = [
  '0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02',
  '0x0000F90827F1C53a10cb7A02335B175320002935',
  '0x00000961Ef480Eb55e80D19ad83579A64c007002',
  '0x0000BBdDc7CE488642fb579F8B00F3a590007251',
].map((a) => createAddressFromString(a.toLowerCase()));

/** True when empty blocks keep the state as it is, so a run of them can share one state root. */
export async function emptyBlocksKeepState(state: { getCode(a: ReturnType<typeof createAddressFromString>): Promise<Uint8Array> }): Promise<boolean> {
  for (const a of SYSTEM_CONTRACTS) if ((await state.getCode(a)).length > 0) return false;
  return true;
}

// Positions in the header's RLP list (the consensus field order).
const PARENT_HASH = 0;
const NUMBER = 8;
const TIMESTAMP = 11;
const BASE_FEE = 15;
const EXCESS_BLOB_GAS = 18;

const fingerprintOf = (h: Uint8Array): number => ((h[0] << 24) | (h[1] << 16) | (h[2] << 8) | h[3]) >>> 0;

export class EmptyRun {
  /** Number of the run's first block. */
  readonly first: bigint;
  /** Seconds between consecutive blocks. */
  readonly interval: bigint;
  /** Blocks in the run. */
  count: number;
  /** Sum of the counts of the runs before this one (maintained by the store). */
  virtualBefore = 0;
  /** Header of the real block the run follows; every block shares its constant fields. */
  readonly template: BlockHeader;

  private readonly common: Common;
  private readonly raw: Uint8Array[];
  private readonly templateHash: Uint8Array;
  private readonly templateTimestamp: bigint;
  private readonly hasBlobFields: boolean;
  private readonly hasWithdrawals: boolean;
  /** Base fee of block i, until it stops changing (then the last entry holds for the rest). */
  private readonly fees: bigint[] = [];
  private readonly excess: bigint[] = [];
  /** checkpoints[k] = hash of block k·CHECKPOINT - 1 (checkpoint 0 is the template's hash). */
  private checkpoints: Uint8Array;
  private fingerprints: Uint32Array;
  /** Hashes known for blocks 0 .. done-1. */
  private done = 0;
  private lastHash: Uint8Array;
  /** The block materialized last (sequential walks reuse its hash). */
  private lastBuilt: { i: number; hash: Uint8Array } | undefined;
  /** The RLP of the header hashed last, patched in place for the next block (see `encodedAt`). */
  private enc: EncodedHeader | undefined;
  /** First block from which base fee and excess blob gas no longer change (Infinity until known). */
  private settledFrom = Infinity;
  /** Number and timestamps as JS numbers, for patching headers (when they fit exactly). */
  private readonly numeric: boolean;
  private readonly firstNumber: number;
  private readonly startTime: number;
  private readonly intervalNumber: number;

  /**
   * @param template a real empty block: the run's first block is its child
   * @param count blocks in the run (at least 1)
   * @param interval seconds between blocks (at least 1)
   */
  constructor(template: Block, count: number, interval: bigint) {
    if (template.transactions.length > 0 || (template.withdrawals?.length ?? 0) > 0) throw new Error('an empty-block run needs an empty template block');
    if (count < 1 || interval < 1n) throw new Error('an empty-block run needs a count and an interval of at least 1');
    const h = template.header;
    this.template = h;
    this.common = h.common;
    this.first = h.number + 1n;
    this.count = count;
    this.interval = interval;
    this.raw = h.raw().slice();
    this.templateHash = template.hash();
    this.templateTimestamp = h.timestamp;
    this.hasBlobFields = h.excessBlobGas !== undefined;
    this.hasWithdrawals = template.withdrawals !== undefined;
    this.lastHash = this.templateHash;
    this.checkpoints = new Uint8Array(32 * (Math.floor(count / CHECKPOINT) + 1));
    this.checkpoints.set(this.templateHash, 0);
    this.fingerprints = new Uint32Array(count);
    if (h.baseFeePerGas !== undefined) this.fees.push(h.calcNextBaseFee());
    if (this.hasBlobFields) this.excess.push(h.calcNextExcessBlobGas(this.common));
    if (h.baseFeePerGas === undefined && !this.hasBlobFields) this.settledFrom = 0;
    this.firstNumber = Number(this.first);
    this.startTime = Number(h.timestamp);
    this.intervalNumber = Number(interval);
    // Far below 2^53 for any chain that could be mined here; checked so patching stays exact.
    this.numeric = this.first < 2n ** 40n && h.timestamp < 2n ** 40n && interval < 2n ** 40n;
  }

  get last(): bigint {
    return this.first + BigInt(this.count) - 1n;
  }

  /** True once every block's hash is known. */
  get complete(): boolean {
    return this.done >= this.count;
  }

  /** Blocks whose hash is known, from the start of the run. */
  get hashed(): number {
    return this.done;
  }

  timestampAt(i: number): bigint {
    return this.templateTimestamp + this.interval * BigInt(i + 1);
  }

  /** Grow the run by `more` blocks (a later anvil_mine continuing it). */
  extend(more: number): void {
    const count = this.count + more;
    const cps = new Uint8Array(32 * (Math.floor(count / CHECKPOINT) + 1));
    cps.set(this.checkpoints.subarray(0, Math.min(this.checkpoints.length, cps.length)));
    const fps = new Uint32Array(count);
    fps.set(this.fingerprints.subarray(0, this.done));
    this.checkpoints = cps;
    this.fingerprints = fps;
    this.count = count;
  }

  /** Keep only the first `count` blocks (a revert into the run). */
  shrink(count: number): void {
    if (count >= this.count) return;
    if (this.lastBuilt && this.lastBuilt.i >= count) this.lastBuilt = undefined;
    if (this.done > count) {
      this.lastHash = count === 0 ? this.templateHash : this.hashAt(count - 1);
      this.done = count;
    }
    this.count = count;
  }

  /** Compute hashes forward until block `i` (inclusive) is known. */
  ensure(i: number): void {
    while (this.done <= i) this.step();
  }

  /** Compute up to `n` more hashes; returns how many were computed. */
  advance(n: number): number {
    let k = 0;
    while (k < n && this.done < this.count) {
      this.step();
      k++;
    }
    return k;
  }

  private step(): void {
    const i = this.done;
    const h = this.hashOf(i, this.lastHash);
    this.fingerprints[i] = fingerprintOf(h);
    if ((i + 1) % CHECKPOINT === 0) this.checkpoints.set(h, ((i + 1) / CHECKPOINT) * 32);
    this.lastHash = h;
    this.done = i + 1;
  }

  /** The header fields of block i as RLP items, with `parentHash` as its parent. */
  private rawAt(i: number, parentHash: Uint8Array): Uint8Array[] {
    // Fees first: settling them builds headers through this same buffer.
    const fee = this.fees.length > 0 ? this.feeAt(i) : undefined;
    const excess = this.hasBlobFields ? this.excessAt(i) : undefined;
    const raw = this.raw;
    raw[PARENT_HASH] = parentHash;
    raw[NUMBER] = bigIntToUnpaddedBytes(this.first + BigInt(i));
    raw[TIMESTAMP] = bigIntToUnpaddedBytes(this.timestampAt(i));
    if (fee !== undefined) raw[BASE_FEE] = bigIntToUnpaddedBytes(fee);
    if (excess !== undefined) raw[EXCESS_BLOB_GAS] = bigIntToUnpaddedBytes(excess);
    return raw;
  }

  private hashOf(i: number, parentHash: Uint8Array): Uint8Array {
    return keccak256(this.encodedAt(i, parentHash));
  }

  /**
   * The RLP of block i's header. Consecutive blocks differ only in parentHash, number and
   * timestamp (once the fees settle), and those keep their encoded lengths for long stretches:
   * the previous encoding is patched in place then, and encoded afresh by the RLP library when
   * anything else changes. Materializing a block checks the result against the library's header.
   */
  private encodedAt(i: number, parentHash: Uint8Array): Uint8Array {
    const e = this.enc;
    if (e !== undefined && i >= this.settledFrom && e.built >= this.settledFrom && this.numeric) {
      const number = this.firstNumber + i;
      const timestamp = this.startTime + this.intervalNumber * (i + 1);
      if (patchUint(e.bytes, e.number, number) && patchUint(e.bytes, e.timestamp, timestamp)) {
        e.bytes.set(parentHash, e.parentHashAt);
        return e.bytes;
      }
    }
    const raw = this.rawAt(i, parentHash);
    this.enc = encodeHeader(raw, i);
    return this.enc.bytes;
  }

  private feeAt(i: number): bigint {
    this.settleFees(i);
    return this.fees[Math.min(i, this.fees.length - 1)];
  }

  private excessAt(i: number): bigint {
    this.settleFees(i);
    return this.excess[Math.min(i, this.excess.length - 1)];
  }

  /**
   * Extend the base fee / excess blob gas sequences to block i. Each step asks the library what
   * an empty parent leads to; both sequences reach a fixed point within a few hundred blocks.
   */
  private settleFees(i: number): void {
    while (this.settledFrom === Infinity && Math.max(this.fees.length, this.excess.length) <= i) {
      const n = Math.max(this.fees.length, this.excess.length) - 1;
      const parent = this.headerOf(n, this.templateHash);
      const fee = this.fees.length > 0 ? parent.calcNextBaseFee() : undefined;
      const ex = this.hasBlobFields ? parent.calcNextExcessBlobGas(this.common) : undefined;
      const same = (fee === undefined || fee === this.fees[n]) && (ex === undefined || ex === this.excess[n]);
      if (same) {
        this.settledFrom = n;
      } else {
        if (fee !== undefined) this.fees.push(fee);
        if (ex !== undefined) this.excess.push(ex);
      }
    }
  }

  /** Header of block i with a given parent hash (the parent hash does not affect fees). */
  private headerOf(i: number, parentHash: Uint8Array): BlockHeader {
    return createBlockHeaderFromBytesArray(this.rawAt(i, parentHash).slice(), { common: this.common, skipConsensusFormatValidation: true });
  }

  /** Hash of block i, recomputed from the checkpoint below it. */
  hashAt(i: number): Uint8Array {
    this.ensure(i);
    if (i === this.done - 1) return this.lastHash;
    const k = Math.floor((i + 1) / CHECKPOINT);
    let h: Uint8Array = this.checkpoints.slice(k * 32, k * 32 + 32);
    for (let j = k * CHECKPOINT; j <= i; j++) h = this.hashOf(j, h);
    return h;
  }

  /** Block i as a stored block (a fresh object; the store caches it). */
  materialize(i: number): StoredBlock {
    this.ensure(i);
    // Walking a range builds block after block: the previous one's hash is the parent hash.
    const parentHash = i === 0 ? this.templateHash : this.lastBuilt?.i === i - 1 ? this.lastBuilt.hash : this.hashAt(i - 1);
    const values: unknown[] = [this.rawAt(i, parentHash).slice(), [], []];
    if (this.hasWithdrawals) values.push([]);
    const block = createBlockFromBytesArray(values as never, { common: this.common, skipConsensusFormatValidation: true });
    const hash = block.hash();
    if (fingerprintOf(hash) !== this.fingerprints[i]) throw new Error(`empty-block run: header of block ${this.first + BigInt(i)} does not reproduce its hash`);
    this.lastBuilt = { i, hash };
    return { block, number: block.header.number, hash, hashHex: bytesToHex(hash), txs: [] };
  }

  /**
   * Index of the block with this hash, or -1. Hashes not computed yet are computed up to the
   * block found (all of them for a hash that is not in the run).
   */
  find(hash: Uint8Array): number {
    if (hash.length !== 32) return -1;
    const fp = fingerprintOf(hash);
    const fps = this.fingerprints;
    for (let i = 0; i < this.done; i++) {
      if (fps[i] === fp && equalsBytes(this.hashAt(i), hash)) return i;
    }
    while (this.done < this.count) {
      this.step();
      if (equalsBytes(this.lastHash, hash)) return this.done - 1;
    }
    return -1;
  }
}

/** Where a number's payload sits in an encoded header, and the values that keep its length. */
interface Slot {
  at: number;
  length: number;
  min: number;
  max: number;
}

interface EncodedHeader {
  bytes: Uint8Array;
  parentHashAt: number;
  number: Slot;
  timestamp: Slot;
  /** The block it was encoded for. */
  built: number;
}

/** Encode header fields with the RLP library and note where the per-block fields sit. */
function encodeHeader(raw: Uint8Array[], built: number): EncodedHeader {
  const bytes = RLP.encode(raw);
  const sizes = raw.map((f) => RLP.encode(f).length);
  let at = bytes.length - sizes.reduce((a, b) => a + b, 0);
  const payloadAt: number[] = [];
  for (let k = 0; k < raw.length; k++) {
    payloadAt.push(at + sizes[k] - raw[k].length);
    at += sizes[k];
  }
  const slot = (k: number): Slot => {
    const length = raw[k].length;
    // A value below 0x80 is its own one-byte encoding, with no length prefix, and zero is the
    // empty string: neither is patched (encoded afresh instead).
    if (length === 0 || sizes[k] === length) return { at: payloadAt[k], length, min: Infinity, max: 0 };
    return { at: payloadAt[k], length, min: length === 1 ? 0x80 : 2 ** (8 * (length - 1)), max: 2 ** (8 * length) };
  };
  return { bytes, parentHashAt: payloadAt[PARENT_HASH], number: slot(NUMBER), timestamp: slot(TIMESTAMP), built };
}

/** Write `value` big-endian into `slot` if it encodes to the same length; false (nothing written) otherwise. */
function patchUint(bytes: Uint8Array, slot: Slot, value: number): boolean {
  if (value < slot.min || value >= slot.max) return false;
  let v = value;
  for (let k = slot.at + slot.length - 1; k >= slot.at; k--) {
    bytes[k] = v % 256;
    v = Math.floor(v / 256);
  }
  return true;
}
