/**
 * The log index: every log of the chain, findable by address and by topic without scanning blocks.
 *
 * Kept up to date from the node's `block`, `emptyBlocks` and `reorg` events. For each block with
 * logs it holds them as `LogEntry` records (address and topics as lowercase hex, interned: the same
 * string object for equal values), and for each address and each (position, topic) the ascending
 * list of block numbers that carry such a log. A query walks the most selective of those lists
 * inside its block range, tests each candidate block's header bloom for the other conditions, then
 * matches the block's logs exactly. Empty blocks mined as a run (anvil_mine) are never built here.
 *
 * Consumers (polling filters, subscriptions) listen to this index's own `block` / `emptyBlocks` /
 * `reorg` events, which fire after the index was updated, hand over the block's log entries (so
 * nothing is computed twice) and, for a reorg, the fork point. The node announces no `reorg` when
 * a revert drops only empty blocks of a run; the index notices it from the block numbers (at the
 * next block or the next `sync()`) and reports it like any other.
 */
import { EventEmitter } from 'node:events';
import { bytesToHex } from '@ethereumjs/util';
import { ChainError } from '../core/errors.js';
import type { ChainFeed } from '../pool/events.js';
import type { BlockRef, StoredBlock } from '../core/types.js';
import { LogMatcher, TooManyLogsError } from './matcher.js';
import type { DroppedBlock, LogCriteria, LogEntry } from './logTypes.js';

export { LogMatcher, TooManyLogsError } from './matcher.js';
export type { DroppedBlock, LogChange, LogCriteria, LogEntry } from './logTypes.js';

export interface LogIndexEvents {
  /** A block joined the chain and is indexed. */
  block: [StoredBlock, readonly LogEntry[]];
  /**
   * Blocks above `fork` left the chain (the real ones listed, oldest first; empty blocks of runs
   * are not) and are no longer indexed. `fork` is the last block kept (-1 after a reset).
   */
  reorg: [readonly DroppedBlock[], bigint];
  /** Empty blocks first..last joined the chain as a run built on demand (no `block` events). */
  emptyBlocks: [bigint, bigint];
}

const EMPTY: readonly LogEntry[] = Object.freeze([]);

/** Block numbers are kept as JS numbers in postings; chains beyond 2^53 blocks are not a dev concern. */
type Postings = number[];

/** First index in ascending `list` whose value is >= n. */
function lowerBound(list: Postings, n: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < n) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Remove every entry >= n from the end of an ascending list. */
function truncateFrom(list: Postings, n: number): void {
  let len = list.length;
  while (len > 0 && list[len - 1] >= n) len--;
  list.length = len;
}

interface Posting {
  /** The interned key string. */
  readonly key: string;
  readonly blocks: Postings;
}

export class LogIndex {
  /** Index-level events: fire after the index took the change in. */
  readonly events = new EventEmitter<LogIndexEvents>();
  /**
   * Most logs one query may return (eth_getLogs, eth_getFilterLogs); undefined = no cap. Beyond
   * it the query fails with -32005.
   */
  maxResults: number | undefined;
  /** Most blocks one eth_getLogs / eth_getFilterLogs range may span (--max-block-range); undefined = no cap. */
  maxBlockRange: number | undefined;

  private readonly byAddress = new Map<string, Posting>();
  /** Per topic position (0..3; more are indexed too, a log may carry at most 4). */
  private readonly byTopic: Array<Map<string, Posting>> = [];
  /** Blocks that have at least one log. */
  private readonly withLogs: Postings = [];
  /** Log entries of the blocks that have logs, by block number. */
  private readonly perBlock = new Map<number, readonly LogEntry[]>();
  /**
   * The real blocks indexed, ascending. Empty blocks of runs mined in one call (anvil_mine) are
   * never built nor indexed: they hold no logs.
   */
  private readonly real: StoredBlock[] = [];
  /** The store's head number when the index last caught up. */
  private seen = -1;
  private total = 0;

  constructor(private readonly node: ChainFeed) {
    node.events.on('block', (b) => this.onGrowth(b.number, b));
    node.events.on('emptyBlocks', (first, last) => this.onGrowth(first, undefined, last));
    node.events.on('reorg', (dropped) => this.onReorg(dropped));
  }

  /** Number of indexed logs. */
  get size(): number {
    return this.total;
  }

  /** Resolve eth_getLogs' fromBlock/toBlock (default latest) against the head; -32602 on bad ranges, -32005 past `maxBlockRange`. */
  resolveRange(fromRef: BlockRef | undefined, toRef: BlockRef | undefined): [bigint, bigint] {
    const head = this.node.store.headNumber;
    const resolve = (ref: BlockRef | undefined): bigint => {
      if (ref === undefined) return head;
      if (ref.kind === 'number') return ref.number;
      if (ref.kind === 'tag') return ref.tag === 'earliest' ? 0n : head;
      const b = this.node.block(ref);
      if (!b) throw new ChainError('unknown block');
      return b.number;
    };
    const from = resolve(fromRef);
    const to = resolve(toRef);
    // Same checks, same order and same messages as geth.
    if (from > to) throw new ChainError('invalid block range params', undefined, -32602);
    if (to > head) throw new ChainError('block range extends beyond current head block', undefined, -32602);
    const span = to - from + 1n;
    if (this.maxBlockRange !== undefined && span > BigInt(this.maxBlockRange)) {
      throw new ChainError(`block range too large: ${span} blocks (0x${from.toString(16)}-0x${to.toString(16)}), the limit is ${this.maxBlockRange} (--max-block-range); query a narrower range`, undefined, -32005);
    }
    return [from, to];
  }

  /**
   * Logs matching `criteria` in blocks [from, to] (inclusive, clamped to the chain), ordered by
   * block then log index. `cap` (default: `maxResults`; Infinity for none) bounds the result:
   * more → TooManyLogsError.
   */
  query(criteria: LogCriteria | LogMatcher, from: bigint, to: bigint, cap: number = this.maxResults ?? Infinity): LogEntry[] {
    this.sync();
    const matcher = criteria instanceof LogMatcher ? criteria : new LogMatcher(criteria);
    const lo = Number(from < 0n ? 0n : from);
    const hi = Math.min(Number(to), this.seen);
    const out: LogEntry[] = [];
    if (lo > hi) return out;
    const candidates = this.candidates(matcher, lo, hi);
    const exact = matcher.matchesAll;
    let lastFull: number | undefined;
    for (const n of candidates) {
      const entries = this.perBlock.get(n);
      if (entries === undefined) continue;
      if (exact) {
        for (const e of entries) out.push(e);
      } else {
        if (entries.length > 1 && !matcher.mayMatch(entries[0].tx.block.block.header.logsBloom)) continue;
        matcher.filter(entries, out);
      }
      if (out.length > cap) {
        throw new TooManyLogsError(cap, from, to, lastFull === undefined ? undefined : BigInt(lastFull));
      }
      lastFull = n;
    }
    return out;
  }

  /** Matching logs of one block (eth_getLogs with blockHash). */
  queryBlock(criteria: LogCriteria | LogMatcher, block: StoredBlock, cap: number = this.maxResults ?? Infinity): LogEntry[] {
    return this.query(criteria, block.number, block.number, cap);
  }

  /**
   * Ascending candidate block numbers in [lo, hi]: the postings of the most selective constrained
   * dimension (the union over its OR-values), or every block with logs when nothing is constrained.
   */
  private candidates(matcher: LogMatcher, lo: number, hi: number): Iterable<number> {
    let best: Array<[Postings, number, number]> | undefined;
    let bestCount = Infinity;
    for (const dim of matcher.dimensions()) {
      const map = dim.position < 0 ? this.byAddress : this.byTopic[dim.position];
      const slices: Array<[Postings, number, number]> = [];
      let count = 0;
      for (const key of dim.keys) {
        const p = map?.get(key);
        if (!p) continue;
        const a = lowerBound(p.blocks, lo);
        const b = lowerBound(p.blocks, hi + 1);
        if (b > a) {
          slices.push([p.blocks, a, b]);
          count += b - a;
        }
      }
      if (count < bestCount) {
        best = slices;
        bestCount = count;
        if (count === 0) break;
      }
    }
    if (best === undefined) {
      return this.withLogs.slice(lowerBound(this.withLogs, lo), lowerBound(this.withLogs, hi + 1));
    }
    if (best.length === 1) {
      const [list, a, b] = best[0];
      return list.slice(a, b);
    }
    const merged: number[] = [];
    for (const [list, a, b] of best) for (let i = a; i < b; i++) merged.push(list[i]);
    merged.sort((x, y) => x - y);
    let w = 0;
    for (let r = 0; r < merged.length; r++) if (r === 0 || merged[r] !== merged[r - 1]) merged[w++] = merged[r];
    merged.length = w;
    return merged;
  }

  // ---------------------------------------------------------------- maintenance

  /** Blocks from `first` on joined the chain: a real block `b`, or empty blocks first..last. */
  private onGrowth(first: bigint, b: StoredBlock | undefined, last?: bigint): void {
    // New blocks at heights the index had seen: blocks were dropped without a `reorg` (only
    // empty blocks of a run, which the node does not list).
    if (Number(first) <= this.seen) this.cut(Number(first) - 1);
    this.sync();
    if (b !== undefined) {
      if (this.real[this.real.length - 1] === b) this.events.emit('block', b, this.perBlock.get(Number(b.number)) ?? EMPTY);
    } else {
      this.events.emit('emptyBlocks', first, last!);
    }
  }

  private onReorg(dropped: StoredBlock[]): void {
    if (dropped.length === 0) return;
    const head = Number(this.node.store.headNumber);
    const first = Number(dropped[0].number) - 1;
    // A reset drops the genesis too (fork point -1); a revert keeps the store's head.
    this.cut(Math.min(head, first), dropped);
    this.sync();
  }

  /**
   * Bring the index in line with the store: notice blocks dropped without an event, index the
   * real blocks added beyond what it has seen. Normally a no-op; callers about to rely on the
   * index (polls, queries) call it.
   */
  sync(): void {
    const store = this.node.store;
    const head = Number(store.headNumber);
    let fork = head < this.seen ? head : this.seen;
    // The highest indexed real block must still be the store's.
    for (let k = this.real.length - 1; k >= 0; k--) {
      const b = this.real[k];
      const n = Number(b.number);
      if (n <= fork && store.byNumber(b.number) === b) break;
      fork = Math.min(fork, n - 1);
    }
    if (fork < this.seen) this.cut(fork);
    if (head > this.seen) {
      for (const b of store.realBlocks(BigInt(this.seen + 1), BigInt(head))) this.add(b);
      this.seen = head;
    }
  }

  /**
   * Forget every block above `fork` and tell listeners. `given` is the node's list of dropped
   * blocks when it sent one; otherwise the index's own dropped blocks are reported.
   */
  private cut(fork: number, given?: readonly StoredBlock[]): void {
    let k = this.real.length;
    while (k > 0 && Number(this.real[k - 1].number) > fork) k--;
    const indexed = this.real.slice(k);
    const mine = new Set(indexed);
    const out: DroppedBlock[] = (given ?? indexed).map((block) => ({
      block,
      // Entries of a block the index holds are reused; others are built now.
      entries: mine.has(block) ? (this.perBlock.get(Number(block.number)) ?? EMPTY) : this.entriesOf(block),
    }));
    for (const b of indexed) this.remove(b);
    this.real.length = k;
    if (fork < this.seen) this.seen = fork;
    this.events.emit('reorg', out, BigInt(fork));
  }

  private entriesOf(b: StoredBlock): readonly LogEntry[] {
    let out: LogEntry[] | undefined;
    for (const t of b.txs) {
      const logs = t.receipt.logs;
      for (let i = 0; i < logs.length; i++) {
        const [address, topics, data] = logs[i];
        (out ??= []).push({
          tx: t,
          logIndex: t.receipt.firstLogIndex + i,
          address: bytesToHex(address),
          topics: topics.map((x) => bytesToHex(x)),
          data,
        });
      }
    }
    return out ?? EMPTY;
  }

  private add(b: StoredBlock): void {
    const n = Number(b.number);
    this.real.push(b);
    const entries = this.entriesOf(b);
    if (entries.length === 0) return;
    for (const e of entries as LogEntry[]) {
      const a = this.post(this.byAddress, e.address, n);
      const topics = e.topics as string[];
      for (let i = 0; i < topics.length; i++) {
        const map = (this.byTopic[i] ??= new Map());
        topics[i] = this.post(map, topics[i], n);
      }
      (e as { address: string }).address = a;
    }
    this.perBlock.set(n, entries);
    this.withLogs.push(n);
    this.total += entries.length;
  }

  /** Record block `n` under `key`; returns the interned key. */
  private post(map: Map<string, Posting>, key: string, n: number): string {
    let p = map.get(key);
    if (p === undefined) {
      p = { key, blocks: [n] };
      map.set(key, p);
      return key;
    }
    const list = p.blocks;
    if (list[list.length - 1] !== n) list.push(n);
    return p.key;
  }

  /** Forget an indexed block (postings are ascending: its numbers are at their ends). */
  private remove(b: StoredBlock): void {
    const n = Number(b.number);
    const entries = this.perBlock.get(n);
    if (!entries) return;
    this.perBlock.delete(n);
    this.total -= entries.length;
    for (const e of entries) {
      this.unpost(this.byAddress, e.address, n);
      e.topics.forEach((t, pos) => this.unpost(this.byTopic[pos], t, n));
    }
    truncateFrom(this.withLogs, n);
  }

  private unpost(map: Map<string, Posting> | undefined, key: string, n: number): void {
    const p = map?.get(key);
    if (!p) return;
    truncateFrom(p.blocks, n);
    if (p.blocks.length === 0) map!.delete(key);
  }
}
