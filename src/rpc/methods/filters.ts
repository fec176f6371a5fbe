/**
 * eth_getLogs and the polling filters (eth_newFilter, eth_newBlockFilter,
 * eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter).
 *
 * Logs come from the node's log index and are written to JSON once (RawJson). Filters created on a
 * WebSocket connection belong to it and are removed when it closes; HTTP ones expire when not
 * polled for the filter timeout (5 minutes by default).
 */
import type { Filters } from '../../chain/api.js';
import type { CallContext } from '../../server/context.js';
import type { RawJson } from '../../format/hex.js';
import type { JsonParts } from '../../format/stream.js';
import { logChangesJson, logsJson } from '../../format/logJson.js';
import { hexId } from '../codecs.js';
import { serverError } from '../errors.js';
import { filterQuery } from '../logFilter.js';
import type { LogCriteria } from '../../chain/logs/logTypes.js';
import { method, methodWithContext, type MethodDef } from '../registry.js';

const filterId = hexId('filter');

/** Connections that own filters; one close hook per connection. */
const hooked = new WeakSet<CallContext>();

export function filterMethods(node: Filters): MethodDef[] {
  const filters = node.filters;

  /** The owner of filters created through `ctx`: the connection on WebSocket, none on HTTP. */
  const ownerOf = (ctx: CallContext): object | undefined => {
    if (ctx.transport !== 'ws' || !ctx.onClose) return undefined;
    if (!hooked.has(ctx)) {
      hooked.add(ctx);
      ctx.onClose(() => filters.releaseOwner(ctx));
    }
    return ctx;
  };

  /** Logs selected by a filter object now. */
  const getLogs = (q: LogCriteria): RawJson | JsonParts => {
    const index = node.logs;
    if (q.blockHash !== undefined) {
      const b = node.block({ kind: 'hash', hash: q.blockHash, requireCanonical: false });
      if (!b) throw serverError('unknown block');
      return logsJson(index.queryBlock(q, b));
    }
    const [from, to] = index.resolveRange(q.fromBlock, q.toBlock);
    return logsJson(index.query(q, from, to));
  };

  return [
    /**
     * Logs matching a filter object, ordered by block and log index. fromBlock/toBlock default to
     * latest; a range reaching past the head is an error (-32602), as in geth.
     */
    method('eth_getLogs', [filterQuery], getLogs),

    /** A log filter; eth_getFilterChanges then reports logs of blocks mined after this call. */
    methodWithContext('eth_newFilter', [filterQuery], (ctx, q) => filters.newLogFilter(q, ownerOf(ctx))),

    /** A filter reporting the hash of each new block. */
    methodWithContext('eth_newBlockFilter', [], (ctx) => filters.newBlockFilter(ownerOf(ctx))),

    /** A filter reporting the hash of each transaction entering the pool. */
    methodWithContext('eth_newPendingTransactionFilter', [], (ctx) => filters.newPendingTransactionFilter(ownerOf(ctx))),

    /** What happened since the last poll: logs (removed ones after a revert) or hashes. */
    method('eth_getFilterChanges', [filterId], async (id) => {
      const c = await filters.changes(id);
      return c.kind === 'logs' ? logChangesJson(c.changes) : c.hashes;
    }),

    /** Every log a log filter selects now, over its whole block range. */
    method('eth_getFilterLogs', [filterId], (id) => logsJson(filters.logs(id))),

    /** Remove a filter; false when there was none. */
    method('eth_uninstallFilter', [filterId], (id) => filters.uninstall(id)),
  ];
}
