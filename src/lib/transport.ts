/**
 * The transport's settings for a mode. Plain dev serves one developer: nothing is limited but the
 * batch size, any web page may call, only local Host names are served. The shared mode (`--public`)
 * serves several people and CI jobs: the spec's rate-limit tiers, geth's public-node caps, no
 * CORS unless asked, any Host (it is reached by whatever name it has). Every field given wins over
 * the mode's default.
 */
import type { DevNode } from '../chain/node.js';
import type { DispatchLimits } from '../rpc/dispatch.js';
import { subscriptionHub } from '../rpc/subscriptionHub.js';
import type { AccessEntry } from '../server/access.js';
import { devHosts } from '../server/hosts.js';
import type { Gauge } from '../server/metrics.js';
import type { ServerOptions } from '../server/server.js';

export interface TransportOptions {
  /** Turn the rate-limit tiers on without the rest of the shared mode (`--rate-limit`). */
  rateLimit?: boolean;
  /** Calls per second per client IP (0 = unlimited; default 100 when the tiers are on). */
  rateLimitIp?: number;
  /** Calls per second per WebSocket connection without a key (0 = unlimited; default 100). */
  rateLimitWs?: number;
  /** Calls per second per API key (0 = unlimited; default 1,000). */
  rateLimitKey?: number;
  /** Known API keys; with none given (undefined) keys are off and presented keys ignored. */
  apiKeys?: readonly string[];
  /** Proxies whose X-Forwarded-For names the client. */
  trustProxy?: readonly string[];
  /** Origins allowed to read answers in browsers (default: any in dev, none in shared mode). */
  cors?: readonly string[] | '*';
  /** Host names served (default: local names and the bound address in dev, any in shared mode). */
  allowedHosts?: readonly string[] | '*';
  /** Open connections per client address (0 = no cap; default 50 in shared mode). */
  maxConnsPerIp?: number;
  /** Most calls in one batch (0 = no cap; default 1,000). */
  maxBatch?: number;
  /** Bytes a batch answer may hold (0 = no cap; default 25,000,000 in shared mode). */
  maxBatchResponseBytes?: number;
  /** Largest request body in bytes (default 16 MiB in dev, 5 MiB in shared mode). */
  maxBodyBytes?: number;
  /** Told of every request once answered (the access log). */
  onAccess?: (entry: AccessEntry) => void;
  /** Seconds a WebSocket may stay far over its limit before it is closed (default 10). */
  overrunCloseSeconds?: number;
}

/** The spec's tiers (section 8): calls per second. */
export const SPEC_RATE_LIMITS = { ip: 100, ws: 100, key: 1_000 } as const;
/** geth's numbers for a public node. */
export const SHARED_MAX_BODY_BYTES = 5 * 1024 * 1024;
export const SHARED_MAX_BATCH_RESPONSE_BYTES = 25_000_000;
export const SHARED_MAX_CONNS_PER_IP = 50;
/** geth-style providers' cap on the blocks one eth_getLogs range may span, on a shared node. */
export const SHARED_MAX_BLOCK_RANGE = 10_000;
/** Most logs one eth_getLogs may return on a shared node started without a --max-logs of its own. */
export const SHARED_MAX_LOGS = 10_000;

type TransportServerOptions = Omit<ServerOptions, 'host' | 'port'>;

export function transportSettings(shared: boolean, host: string, t: TransportOptions = {}): { server: TransportServerOptions; dispatch: DispatchLimits } {
  const tiers = shared || t.rateLimit === true;
  const rate = (given: number | undefined, spec: number) => given ?? (tiers ? spec : 0);
  return {
    server: {
      rateLimit: { ip: rate(t.rateLimitIp, SPEC_RATE_LIMITS.ip), ws: rate(t.rateLimitWs, SPEC_RATE_LIMITS.ws), key: rate(t.rateLimitKey, SPEC_RATE_LIMITS.key) },
      apiKeys: t.apiKeys,
      trustProxy: t.trustProxy,
      cors: t.cors ?? (shared ? [] : '*'),
      allowedHosts: t.allowedHosts ?? (shared ? '*' : devHosts(host)),
      maxConnsPerIp: t.maxConnsPerIp ?? (shared ? SHARED_MAX_CONNS_PER_IP : 0),
      maxBodyBytes: t.maxBodyBytes ?? (shared ? SHARED_MAX_BODY_BYTES : undefined),
      onAccess: t.onAccess,
      overrunCloseSeconds: t.overrunCloseSeconds,
    },
    dispatch: { maxBatch: t.maxBatch, maxBatchResponseBytes: t.maxBatchResponseBytes ?? (shared ? SHARED_MAX_BATCH_RESPONSE_BYTES : undefined) },
  };
}

/** The chain's numbers in GET /metrics. */
export function chainGauges(node: DevNode): () => Gauge[] {
  return () => [
    { name: 'block_number', help: 'Number of the latest block.', value: Number(node.store.headNumber) },
    { name: 'txpool_transactions', help: 'Transactions waiting in the pool.', value: node.pool.size },
    { name: 'subscriptions', help: 'Live eth_subscribe subscriptions.', value: subscriptionHub(node).size },
  ];
}

/** The chain's part of GET /health. */
export function chainHealth(node: DevNode): () => Record<string, unknown> {
  return () => ({ chainId: Number(node.config.chainId), blockNumber: Number(node.store.headNumber), txpool: node.pool.size });
}
