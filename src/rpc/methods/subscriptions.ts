/**
 * eth_subscribe / eth_unsubscribe (WebSocket only): newHeads, logs, newPendingTransactions, syncing.
 * The subscriptions themselves live in the node's hub (../subscriptionHub.ts).
 */
import type { Subscriptions } from '../../chain/api.js';
import { LogMatcher } from '../../chain/logs/logIndex.js';
import { hexId, json, optional, type Codec } from '../codecs.js';
import { ErrorCode, invalidParams, RpcError } from '../errors.js';
import { subscriptionFilter } from '../logFilter.js';
import { methodWithContext, type MethodDef } from '../registry.js';
import { KINDS, subscriptionHub, type Kind } from '../subscriptionHub.js';

const kind: Codec<Kind> = {
  type: 'subscription name',
  parse(value, where) {
    if (typeof value === 'string' && (KINDS as readonly string[]).includes(value)) return value as Kind;
    throw invalidParams(`invalid argument ${where}: no ${JSON.stringify(value)} subscription; expected one of ${KINDS.join(', ')}`);
  },
};

const subscriptionId = hexId('subscription');

const needsWebSocket = (name: string) =>
  new RpcError(
    ErrorCode.MethodNotFound,
    `notifications not supported: ${name} needs a WebSocket connection (ws://); over HTTP poll with eth_newFilter, eth_newBlockFilter or eth_newPendingTransactionFilter and eth_getFilterChanges`,
  );

export function subscriptionMethods(node: Subscriptions): MethodDef[] {
  const hub = subscriptionHub(node);
  return [
    /**
     * Subscribe on this WebSocket connection: `newHeads`; `logs` with an optional
     * `{address, topics}` filter; `newPendingTransactions` (hashes, or full transactions with
     * `true`); `syncing` (a dev chain never syncs, so it never fires). Answers the subscription id.
     */
    methodWithContext('eth_subscribe', [kind, optional(json)], (ctx, k, arg) => {
      if (ctx.transport !== 'ws' || !ctx.send) throw needsWebSocket('eth_subscribe');
      switch (k) {
        case 'logs':
          return hub.subscribe(ctx, k, { matcher: new LogMatcher(subscriptionFilter.parse(arg, '1')) });
        case 'newPendingTransactions': {
          if (arg !== undefined && typeof arg !== 'boolean') {
            throw invalidParams(`invalid argument 1: expected a boolean (true for full transactions), got ${JSON.stringify(arg)}`);
          }
          return hub.subscribe(ctx, k, { full: arg === true });
        }
        default:
          return hub.subscribe(ctx, k);
      }
    }),

    /** Cancel a subscription of this connection; false when it has none with that id. */
    methodWithContext('eth_unsubscribe', [subscriptionId], (ctx, id) => {
      if (ctx.transport !== 'ws' || !ctx.send) throw needsWebSocket('eth_unsubscribe');
      return hub.unsubscribe(ctx, id);
    }),
  ];
}
