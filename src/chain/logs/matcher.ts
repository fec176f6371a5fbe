/**
 * Log criteria compiled for matching (exact sets, and bloom probes to rule out blocks before
 * reading their logs), and the error of a query past the log cap.
 */
import { hexToBytes } from '@ethereumjs/util';
import { Bloom } from '@ethereumjs/vm';
import { ChainError } from '../core/errors.js';
import type { LogCriteria, LogEntry } from './logTypes.js';

/** The set bytes of one value's 3-bit bloom pattern: [byte index, mask] pairs. */
type BloomProbe = ReadonlyArray<readonly [number, number]>;

function bloomProbe(valueHex: string): BloomProbe {
  const b = new Bloom();
  b.add(hexToBytes(valueHex as `0x${string}`));
  const out: Array<[number, number]> = [];
  b.bitvector.forEach((mask, i) => {
    if (mask !== 0) out.push([i, mask]);
  });
  return out;
}

const probeHits = (bloom: Uint8Array, probe: BloomProbe): boolean => {
  for (const [i, mask] of probe) if ((bloom[i] & mask) !== mask) return false;
  return true;
};

/** Criteria compiled for matching: sets for exact tests, bloom probes for block pre-tests. */
export class LogMatcher {
  private readonly addresses: ReadonlySet<string> | undefined;
  private readonly topics: ReadonlyArray<ReadonlySet<string> | undefined>;
  private readonly minTopics: number;
  /**
   * Every group must have one probe present in a block's bloom. Made at the first bloom test: a
   * probe costs a hash and a 256-byte walk per value (~10 µs), and most queries never test a bloom
   * (a block whose logs are read directly, as an eth_getLogs of one block is).
   */
  private bloomGroups: BloomProbe[][] | undefined;

  constructor(readonly criteria: LogCriteria) {
    this.addresses = criteria.addresses.length > 0 ? new Set(criteria.addresses) : undefined;
    this.topics = criteria.topics.map((t) => (t && t.length > 0 ? new Set(t) : undefined));
    this.minTopics = criteria.topics.length;
  }

  private groups(): BloomProbe[][] {
    if (this.bloomGroups === undefined) {
      const groups: BloomProbe[][] = [];
      if (this.addresses) groups.push([...this.addresses].map(bloomProbe));
      for (const set of this.topics) if (set) groups.push([...set].map(bloomProbe));
      this.bloomGroups = groups;
    }
    return this.bloomGroups;
  }

  /** True when the criteria accept every log. */
  get matchesAll(): boolean {
    return this.addresses === undefined && this.minTopics === 0;
  }

  matches(e: LogEntry): boolean {
    if (this.addresses !== undefined && !this.addresses.has(e.address)) return false;
    const n = this.minTopics;
    if (n === 0) return true;
    const topics = e.topics;
    if (topics.length < n) return false;
    for (let i = 0; i < n; i++) {
      const set = this.topics[i];
      if (set !== undefined && !set.has(topics[i])) return false;
    }
    return true;
  }

  /** False when a block with this logs bloom cannot hold a matching log. */
  mayMatch(bloom: Uint8Array): boolean {
    for (const group of this.groups()) {
      let hit = false;
      for (const probe of group) {
        if (probeHits(bloom, probe)) {
          hit = true;
          break;
        }
      }
      if (!hit) return false;
    }
    return true;
  }

  /** Matching logs of one block's entries, in order. */
  filter(entries: readonly LogEntry[], out: LogEntry[] = []): LogEntry[] {
    for (const e of entries) if (this.matches(e)) out.push(e);
    return out;
  }

  /** The values whose postings can drive a query: one list of keys per constrained dimension. */
  dimensions(): Array<{ position: number; keys: string[] }> {
    const dims: Array<{ position: number; keys: string[] }> = [];
    if (this.addresses) dims.push({ position: -1, keys: [...this.addresses] });
    this.topics.forEach((set, position) => {
      if (set) dims.push({ position, keys: [...set] });
    });
    return dims;
  }
}

/** Thrown when a query would return more logs than the configured cap (-32005). */
export class TooManyLogsError extends ChainError {
  constructor(cap: number, from: bigint, to: bigint, lastFullBlock: bigint | undefined) {
    const hint =
      lastFullBlock !== undefined && lastFullBlock >= from
        ? `retry with a narrower block range, e.g. fromBlock 0x${from.toString(16)} to toBlock 0x${lastFullBlock.toString(16)}`
        : `a single block holds more matching logs than that; narrow the address/topics filter or raise --max-logs`;
    super(`query returned more than ${cap} logs (the --max-logs cap) for blocks 0x${from.toString(16)}-0x${to.toString(16)}; ${hint}`, undefined, -32005);
  }
}

