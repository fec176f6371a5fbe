/**
 * Polling filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter): ids,
 * cursors, expiry.
 *
 * Block and log filters keep a cursor (the last block number they reported) rather than a queue:
 * a poll reports the blocks (cursor, head] (log filters through the log index), so nothing is done
 * per mined block and nothing is missed or repeated however many blocks came between two polls.
 * A reorg (snapshot revert) is the one event they listen to, and only while such filters exist:
 * what the filter had not reported yet up to the dropped blocks is queued first, then (log filters)
 * the dropped logs again with `removed: true`, as geth reports them, and the cursor moves back to
 * the fork point. Pending-transaction filters queue hashes from the node's `pendingTx` event.
 *
 * A filter not polled for `timeoutMs` (5 minutes, geth's rule) is gone: lookups treat it as absent
 * at once, and a sweep frees its memory. Filters may have an owner (a WebSocket connection):
 * `releaseOwner` removes all of its filters at once.
 */
import { randomBytes } from 'node:crypto';
import { ChainError } from '../core/errors.js';
import type { Owner } from '../core/owner.js';
import { LogMatcher, type LogIndex, type DroppedBlock, type LogChange, type LogCriteria, type LogEntry } from './logIndex.js';
import type { PendingTx } from '../pool/txpool.js';
import type { ChainFeed } from '../pool/events.js';

export const DEFAULT_FILTER_TIMEOUT_MS = 5 * 60_000;
/** Block hashes a block-filter poll computes per I/O turn. */
const HASH_SLICE = 2_000;
/** Longest pause between two sweeps for expired filters. */
const MAX_SWEEP_MS = 60_000;

interface Base {
  readonly id: string;
  lastPoll: number;
  readonly owner: object | undefined;
}

interface LogFilter extends Base {
  readonly kind: 'logs';
  readonly spec: LogCriteria;
  readonly matcher: LogMatcher;
  /** Only logs of blocks in [lo, hi] are reported (numeric fromBlock/toBlock). */
  readonly lo: bigint;
  readonly hi: bigint | undefined;
  /** Last block number reported. */
  cursor: bigint;
  /** Changes queued by a reorg, reported before the blocks after the cursor. */
  queued: LogChange[];
}

interface BlockFilter extends Base {
  readonly kind: 'blocks';
  cursor: bigint;
  /** Hashes queued by a reorg. */
  queued: string[];
  /** While a long poll is under way: the last block it may still report. */
  limit?: bigint;
}

interface PendingTxFilter extends Base {
  readonly kind: 'pendingTxs';
  hashes: string[];
}

type Filter = LogFilter | BlockFilter | PendingTxFilter;

export type FilterChanges = { kind: 'logs'; changes: LogChange[] } | { kind: 'hashes'; hashes: string[] };

/** A random 16-byte id in geth's form: 0x-hex without leading zeros. */
export function randomId(): string {
  const hex = randomBytes(16).toString('hex').replace(/^0+/, '');
  return '0x' + (hex === '' ? '0' : hex);
}

const notFound = () => new ChainError('filter not found');

export class FilterRegistry implements Owner<void> {
  readonly name = 'filters';
  private readonly filters = new Map<string, Filter>();
  private readonly byOwner = new Map<object, Set<string>>();
  private cursorFilters = 0;
  private pendingFilters = 0;
  private sweepTimer: NodeJS.Timeout | undefined;
  private timeout = DEFAULT_FILTER_TIMEOUT_MS;
  private readonly onReorg = (dropped: readonly DroppedBlock[], fork: bigint) => this.reorg(dropped, fork);
  private readonly onPendingTx = (p: PendingTx) => {
    for (const f of this.filters.values()) if (f.kind === 'pendingTxs') f.hashes.push(p.hashHex);
  };

  constructor(
    private readonly node: ChainFeed,
    private readonly index: LogIndex,
  ) {}

  /** Filters not polled for this long expire (default 5 minutes). */
  get timeoutMs(): number {
    return this.timeout;
  }

  set timeoutMs(ms: number) {
    if (!(ms > 0)) throw new RangeError('filter timeout must be positive');
    this.timeout = ms;
    if (this.sweepTimer) {
      this.stopSweep();
      this.startSweep();
    }
  }

  /** Number of installed filters (expired ones not yet swept included). */
  get size(): number {
    return this.filters.size;
  }

  // ---------------------------------------------------------------- install

  newLogFilter(spec: LogCriteria, owner?: object): string {
    let lo = 0n;
    let hi: bigint | undefined;
    if (spec.fromBlock?.kind === 'number') lo = spec.fromBlock.number;
    else if (spec.fromBlock?.kind === 'tag' && spec.fromBlock.tag === 'earliest') lo = 0n;
    if (spec.toBlock?.kind === 'number') hi = spec.toBlock.number;
    else if (spec.toBlock?.kind === 'tag' && spec.toBlock.tag === 'earliest') hi = 0n;
    if (hi !== undefined && lo > hi) throw new ChainError('invalid block range params', undefined, -32602);
    return this.install({
      kind: 'logs',
      id: randomId(),
      lastPoll: Date.now(),
      owner,
      spec,
      matcher: new LogMatcher(spec),
      lo,
      hi,
      cursor: this.head(),
      queued: [],
    });
  }

  newBlockFilter(owner?: object): string {
    return this.install({ kind: 'blocks', id: randomId(), lastPoll: Date.now(), owner, cursor: this.head(), queued: [] });
  }

  newPendingTransactionFilter(owner?: object): string {
    return this.install({ kind: 'pendingTxs', id: randomId(), lastPoll: Date.now(), owner, hashes: [] });
  }

  private install(f: Filter): string {
    this.filters.set(f.id, f);
    if (f.owner) {
      let ids = this.byOwner.get(f.owner);
      if (!ids) this.byOwner.set(f.owner, (ids = new Set()));
      ids.add(f.id);
    }
    if (f.kind === 'pendingTxs') {
      if (this.pendingFilters++ === 0) this.node.events.on('pendingTx', this.onPendingTx);
    } else if (this.cursorFilters++ === 0) {
      this.index.events.on('reorg', this.onReorg);
    }
    if (!this.sweepTimer) this.startSweep();
    return f.id;
  }

  /** The head number, once the index has caught up with the store. */
  private head(): bigint {
    this.index.sync();
    return this.node.store.headNumber;
  }

  // ---------------------------------------------------------------- uninstall

  /** Remove a filter; false when there is none with that id. */
  uninstall(id: string): boolean {
    const f = this.live(id);
    if (!f) return false;
    this.remove(f);
    return true;
  }

  /** Remove every filter of `owner` (a closed connection). */
  releaseOwner(owner: object): void {
    const ids = this.byOwner.get(owner);
    if (!ids) return;
    for (const id of [...ids]) {
      const f = this.filters.get(id);
      if (f) this.remove(f);
    }
    this.byOwner.delete(owner);
  }

  private remove(f: Filter): void {
    if (!this.filters.delete(f.id)) return;
    if (f.owner) {
      const ids = this.byOwner.get(f.owner);
      ids?.delete(f.id);
      if (ids?.size === 0) this.byOwner.delete(f.owner);
    }
    if (f.kind === 'pendingTxs') {
      if (--this.pendingFilters === 0) this.node.events.off('pendingTx', this.onPendingTx);
    } else if (--this.cursorFilters === 0) {
      this.index.events.off('reorg', this.onReorg);
    }
    if (this.filters.size === 0) this.stopSweep();
  }

  // ---------------------------------------------------------------- polling

  /** eth_getFilterChanges: what happened since the last poll. Unknown or expired → `filter not found`. */
  changes(id: string): FilterChanges | Promise<FilterChanges> {
    const f = this.live(id);
    if (!f) throw notFound();
    f.lastPoll = Date.now();
    // Blocks dropped without an event (only empty ones) reach the filters through the index now.
    this.index.sync();
    const head = this.node.store.headNumber;
    switch (f.kind) {
      case 'pendingTxs': {
        const hashes = f.hashes;
        f.hashes = [];
        return { kind: 'hashes', hashes };
      }
      case 'blocks': {
        const hashes = f.queued;
        f.queued = [];
        const from = f.cursor + 1n;
        f.cursor = head;
        // Hashes of empty blocks mined as a run are computed by building the blocks: a long span
        // is done in slices between I/O turns.
        if (head - from >= BigInt(HASH_SLICE)) return this.hashesInSlices(f, from, head, hashes);
        for (let n = from; n <= head; n++) hashes.push(this.node.store.byNumber(n)!.hashHex);
        return { kind: 'hashes', hashes };
      }
      case 'logs': {
        const changes = f.queued;
        f.queued = [];
        if (f.spec.blockHash === undefined) {
          for (const entry of this.newLogs(f, f.cursor + 1n, head)) changes.push({ entry, removed: false });
        }
        f.cursor = head;
        return { kind: 'logs', changes };
      }
    }
  }

  private async hashesInSlices(f: BlockFilter, from: bigint, to: bigint, hashes: string[]): Promise<FilterChanges> {
    const store = this.node.store;
    // A reorg meanwhile lowers the limit to its fork point: blocks above it are the next poll's
    // (those already listed here were heads when they were read).
    f.limit = to;
    try {
      for (let n = from; n <= f.limit; n++) {
        if ((n - from) % BigInt(HASH_SLICE) === 0n && n > from) {
          await new Promise((r) => setImmediate(r));
          this.index.sync(); // reverts that dropped only empty blocks come to light here
          if (n > f.limit) break;
        }
        const b = store.byNumber(n);
        if (b === undefined) break;
        hashes.push(b.hashHex);
      }
    } finally {
      f.limit = undefined;
    }
    return { kind: 'hashes', hashes };
  }

  /** eth_getFilterLogs: every log the filter's criteria select now (its range resolved at call time). */
  logs(id: string): LogEntry[] {
    const f = this.live(id);
    if (!f || f.kind !== 'logs') throw notFound();
    f.lastPoll = Date.now();
    const index = this.index;
    if (f.spec.blockHash !== undefined) {
      const b = this.node.block({ kind: 'hash', hash: f.spec.blockHash, requireCanonical: false });
      if (!b) throw new ChainError('unknown block');
      return index.queryBlock(f.matcher, b);
    }
    const [from, to] = index.resolveRange(f.spec.fromBlock, f.spec.toBlock);
    return index.query(f.matcher, from, to);
  }

  /** Matching logs of blocks [from, to] within the filter's bounds (no result cap: these are changes). */
  private newLogs(f: LogFilter, from: bigint, to: bigint): LogEntry[] {
    const lo = from > f.lo ? from : f.lo;
    const hi = f.hi !== undefined && f.hi < to ? f.hi : to;
    return lo > hi ? [] : this.index.query(f.matcher, lo, hi, Infinity);
  }

  private inBounds(f: LogFilter, n: bigint): boolean {
    return n >= f.lo && (f.hi === undefined || n <= f.hi);
  }

  /** The filter, unless unknown or expired (an expired one is removed on the spot). */
  private live(id: string): Filter | undefined {
    const f = this.filters.get(id.toLowerCase());
    if (!f) return undefined;
    if (Date.now() - f.lastPoll > this.timeout) {
      this.remove(f);
      return undefined;
    }
    return f;
  }

  // ---------------------------------------------------------------- reorg

  private reorg(dropped: readonly DroppedBlock[], fork: bigint): void {
    const store = this.node.store;
    for (const f of this.filters.values()) {
      if (f.kind === 'pendingTxs') continue;
      if (f.kind === 'blocks') {
        if (f.limit !== undefined && f.limit > fork) f.limit = fork;
        // Heads not reported yet are still reported (they were heads): the surviving ones from
        // the store, the dropped real ones from the event (dropped empty blocks of a run are
        // gone without a trace). Then back to the fork point.
        for (let n = f.cursor + 1n; n <= fork; n++) f.queued.push(store.byNumber(n)!.hashHex);
        for (const d of dropped) if (d.block.number > f.cursor) f.queued.push(d.block.hashHex);
        f.cursor = fork;
        continue;
      }
      if (f.spec.blockHash !== undefined) continue;
      // Logs not reported yet: the surviving blocks' from the index, the dropped ones' from the event.
      if (f.cursor < fork) {
        for (const entry of this.newLogs(f, f.cursor + 1n, fork)) f.queued.push({ entry, removed: false });
      }
      for (const d of dropped) {
        if (d.block.number <= f.cursor || !this.inBounds(f, d.block.number)) continue;
        for (const entry of f.matcher.filter(d.entries)) f.queued.push({ entry, removed: false });
      }
      // Then every dropped log the filter selects, removed.
      for (const d of dropped) {
        if (!this.inBounds(f, d.block.number) || d.entries.length === 0) continue;
        for (const entry of f.matcher.filter(d.entries)) f.queued.push({ entry, removed: true });
      }
      f.cursor = fork;
    }
  }

  // ---------------------------------------------------------------- expiry

  private startSweep(): void {
    const every = Math.min(this.timeout, MAX_SWEEP_MS);
    this.sweepTimer = setInterval(() => this.sweep(), every);
    this.sweepTimer.unref();
  }

  private stopSweep(): void {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
  }

  /** Remove expired filters. */
  sweep(): void {
    const now = Date.now();
    for (const f of [...this.filters.values()]) if (now - f.lastPoll > this.timeout) this.remove(f);
  }

  /** Drop every filter and stop the sweep (node shutdown). */
  close(): void {
    for (const f of [...this.filters.values()]) this.remove(f);
  }

  /**
   * Filters follow the chain rather than being rolled back with it: a revert or reset reports the
   * dropped blocks to them (`reorg`), and they report those logs removed, as geth and anvil do.
   * So a snapshot records nothing of them, and a revert or reset leaves them installed.
   */
  snapshot(): void {}

  restore(): void {}

  reset(): void {}
}
