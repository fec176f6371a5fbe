/**
 * The node's subscriptions (eth_subscribe over WebSocket): newHeads, logs, newPendingTransactions,
 * syncing.
 *
 * One hub per node fans events out to the subscribers. Each notification's `result` is serialized
 * once per event, whatever the number of subscribers; per subscriber only the prefix holding its
 * subscription id (built once at subscribe time) is put in front. The hub listens to the node only
 * while it has subscribers of a kind. As in geth, notifications of a new subscription are held
 * until its id was answered, so a client never sees a notification for an id it does not know.
 * Closing a connection removes its subscriptions.
 */
import type { Subscriptions } from '../chain/api.js';
import { type DroppedBlock, type LogEntry, type LogMatcher } from '../chain/logs/logIndex.js';
import type { PendingTx } from '../chain/pool/txpool.js';
import type { StoredBlock } from '../chain/core/types.js';
import { randomId } from '../chain/logs/filters.js';
import { formatHeader } from '../format/block.js';
import { LogWriter } from '../format/logJson.js';
import { formatTx, PENDING } from '../format/tx.js';
import { ErrorCode, RpcError } from './errors.js';
import type { CallContext } from '../server/context.js';

/** How long one turn of announcing queued heads (runs of empty blocks) may take. */
const HEADS_SLICE_MS = 8;

export const KINDS = ['newHeads', 'logs', 'newPendingTransactions', 'syncing'] as const;
export type Kind = (typeof KINDS)[number];

interface Sub {
  readonly id: string;
  readonly kind: Kind;
  readonly send: (message: string) => void;
  /** `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"<id>","result":` */
  readonly prefix: string;
  readonly matcher?: LogMatcher;
  /** newPendingTransactions: full transaction objects instead of hashes. */
  readonly full?: boolean;
  /** Notifications held until the subscribe answer went out; undefined once active. */
  held: string[] | undefined;
}

/** Subscriptions one WebSocket connection may hold at once; the next is -32005. */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 128;

/** Subscriptions of one node. */
export class SubscriptionHub {
  private readonly subs: Record<Kind, Map<string, Sub>> = {
    newHeads: new Map(),
    logs: new Map(),
    newPendingTransactions: new Map(),
    syncing: new Map(),
  };
  /** Subscriptions per connection. */
  private readonly byConn = new Map<CallContext, Map<string, Sub>>();
  private blockHooked = false;
  private pendingHooked = false;
  /**
   * Heads still to announce, oldest first: block number ranges. Runs of empty blocks mined in one
   * call are built and announced in slices between I/O turns; a block mined meanwhile waits its
   * turn behind them. Empty when everything was announced (the usual case: announced at once).
   */
  private readonly headsBehind: Array<{ next: bigint; last: bigint }> = [];
  private pump: NodeJS.Immediate | undefined;
  private readonly onBlock = (b: StoredBlock, entries: readonly LogEntry[]) => this.block(b, entries);
  private readonly onEmptyBlocks = (first: bigint, last: bigint) => this.queueHeads(first, last);
  private readonly onReorg = (dropped: readonly DroppedBlock[], fork: bigint) => this.reorg(dropped, fork);
  private readonly onPendingTx = (p: PendingTx) => this.pendingTx(p);

  constructor(private readonly node: Subscriptions) {}

  /** Number of live subscriptions. */
  get size(): number {
    let n = 0;
    for (const k of KINDS) n += this.subs[k].size;
    return n;
  }

  /** Number of connections holding subscriptions. */
  get connections(): number {
    return this.byConn.size;
  }

  subscribe(ctx: CallContext, k: Kind, options: { matcher?: LogMatcher; full?: boolean } = {}): string {
    const send = ctx.send!.bind(ctx);
    const id = randomId();
    const sub: Sub = {
      id,
      kind: k,
      send,
      prefix: `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":`,
      matcher: options.matcher,
      full: options.full,
      held: [],
    };
    let mine = this.byConn.get(ctx);
    if (mine && mine.size >= MAX_SUBSCRIPTIONS_PER_CONNECTION) {
      throw new RpcError(ErrorCode.LimitExceeded, `too many subscriptions on this connection: at most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} (eth_unsubscribe some, or open another connection)`);
    }
    if (!mine) {
      this.byConn.set(ctx, (mine = new Map()));
      ctx.onClose?.(() => this.release(ctx));
    }
    mine.set(id, sub);
    this.subs[k].set(id, sub);
    this.hook();
    // The answer carrying the id is written in the microtasks that follow this call.
    setImmediate(() => {
      const held = sub.held!;
      sub.held = undefined;
      if (this.subs[k].get(id) === sub) for (const m of held) send(m);
    });
    return id;
  }

  unsubscribe(ctx: CallContext, id: string): boolean {
    const mine = this.byConn.get(ctx);
    const sub = mine?.get(id);
    if (!sub) return false;
    mine!.delete(id);
    if (mine!.size === 0) this.byConn.delete(ctx);
    this.subs[sub.kind].delete(id);
    this.hook();
    return true;
  }

  /** Drop every subscription of a closed connection. */
  private release(ctx: CallContext): void {
    const mine = this.byConn.get(ctx);
    if (!mine) return;
    this.byConn.delete(ctx);
    for (const sub of mine.values()) this.subs[sub.kind].delete(sub.id);
    this.hook();
  }

  /** Listen to the node exactly while someone needs it. */
  private hook(): void {
    const wantBlocks = this.subs.newHeads.size + this.subs.logs.size > 0;
    if (wantBlocks !== this.blockHooked) {
      const ev = this.node.logs.events;
      if (wantBlocks) {
        ev.on('block', this.onBlock);
        ev.on('emptyBlocks', this.onEmptyBlocks);
        ev.on('reorg', this.onReorg);
      } else {
        ev.off('block', this.onBlock);
        ev.off('emptyBlocks', this.onEmptyBlocks);
        ev.off('reorg', this.onReorg);
      }
      this.blockHooked = wantBlocks;
    }
    const wantPending = this.subs.newPendingTransactions.size > 0;
    if (wantPending !== this.pendingHooked) {
      if (wantPending) this.node.events.on('pendingTx', this.onPendingTx);
      else this.node.events.off('pendingTx', this.onPendingTx);
      this.pendingHooked = wantPending;
    }
  }

  private static deliver(sub: Sub, result: string): void {
    const message = sub.prefix + result + '}}';
    if (sub.held) sub.held.push(message);
    else sub.send(message);
  }

  private block(b: StoredBlock, entries: readonly LogEntry[]): void {
    if (this.subs.newHeads.size > 0) {
      if (this.headsBehind.length === 0) this.announce(b);
      else this.queueHeads(b.number, b.number);
    }
    if (entries.length > 0 && this.subs.logs.size > 0) this.logs([{ block: b, entries }], false);
  }

  /** One newHeads notification: the header serialized once for every subscriber. */
  private announce(b: StoredBlock): void {
    const result = JSON.stringify(formatHeader(b));
    for (const sub of this.subs.newHeads.values()) SubscriptionHub.deliver(sub, result);
  }

  private queueHeads(first: bigint, last: bigint): void {
    if (this.subs.newHeads.size === 0) return;
    const tail = this.headsBehind[this.headsBehind.length - 1];
    if (tail !== undefined && tail.last + 1n === first) tail.last = last;
    else this.headsBehind.push({ next: first, last });
    this.pump ??= setImmediate(() => this.announceBehind());
  }

  /** Announce queued heads for a few milliseconds, then yield to I/O. */
  private announceBehind(): void {
    this.pump = undefined;
    const end = performance.now() + HEADS_SLICE_MS;
    while (this.headsBehind.length > 0 && this.subs.newHeads.size > 0) {
      const job = this.headsBehind[0];
      const b = job.next <= job.last ? this.node.block({ kind: 'number', number: job.next }) : undefined;
      if (b === undefined) {
        this.headsBehind.shift();
        continue;
      }
      this.announce(b);
      job.next++;
      if (performance.now() >= end) break;
    }
    if (this.subs.newHeads.size === 0) this.headsBehind.length = 0;
    if (this.headsBehind.length > 0) this.pump = setImmediate(() => this.announceBehind());
  }

  private reorg(dropped: readonly DroppedBlock[], fork: bigint): void {
    // Heads above the fork point that were not announced yet no longer exist.
    for (const job of this.headsBehind) if (job.last > fork) job.last = fork;
    if (this.subs.logs.size > 0) this.logs(dropped, true);
  }

  /** One notification per matching log, each log written once however many subscribers match it. */
  private logs(blocks: readonly DroppedBlock[], removed: boolean): void {
    const writer = new LogWriter();
    for (const { block, entries } of blocks) {
      if (entries.length === 0) continue;
      const written = new Array<string | undefined>(entries.length);
      const bloom = block.block.header.logsBloom;
      for (const sub of this.subs.logs.values()) {
        const m = sub.matcher!;
        if (!m.matchesAll && !m.mayMatch(bloom)) continue;
        for (let i = 0; i < entries.length; i++) {
          if (!m.matches(entries[i])) continue;
          SubscriptionHub.deliver(sub, (written[i] ??= writer.write(entries[i], removed)));
        }
      }
    }
  }

  private pendingTx(p: PendingTx): void {
    let hash: string | undefined;
    let full: string | undefined;
    for (const sub of this.subs.newPendingTransactions.values()) {
      const result = sub.full ? (full ??= JSON.stringify(formatTx(p.tx, p.from, p.hashHex, PENDING))) : (hash ??= `"${p.hashHex}"`);
      SubscriptionHub.deliver(sub, result);
    }
  }
}

const hubs = new WeakMap<Subscriptions, SubscriptionHub>();

/** The subscription hub serving `node` (for diagnostics and tests). */
export function subscriptionHub(node: Subscriptions): SubscriptionHub {
  let hub = hubs.get(node);
  if (!hub) hubs.set(node, (hub = new SubscriptionHub(node)));
  return hub;
}

