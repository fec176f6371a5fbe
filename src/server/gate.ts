/**
 * What a request must pass before it is served, in this order: its Host (403), its client's place
 * under the per-IP cap of busy connections (429; a known API key is not capped, its own tier
 * limits it), its API key (401 for an unknown one, never a fall-back to the public tier), and then,
 * call by call, the token bucket of its tier (ip, ws or key).
 */
import type { IncomingMessage } from 'node:http';
import { ApiKeys, presentedKey, type KeyId } from './keys.js';
import { hostCheck } from './hosts.js';
import { ClientAddress } from './clientIp.js';
import { ConnectionCap } from './conns.js';
import { BucketMap, TokenBucket } from './limits.js';
import type { Tier } from './metrics.js';

export interface GateOptions {
  /** Host names served (`*` = any). Default: any. */
  allowedHosts?: readonly string[] | '*';
  /** Known API keys; undefined turns keys off (any key presented is then ignored). */
  apiKeys?: readonly string[];
  /** Peers whose X-Forwarded-For names the client. */
  trustProxy?: readonly string[];
  /** Calls per second of each tier; 0 or absent = that tier unlimited. */
  rateLimit?: { ip?: number; ws?: number; key?: number };
  /** Connections with a request in progress (or an open WebSocket) per client address (0 or absent = no cap). */
  maxConnsPerIp?: number;
}

/** Who a JSON-RPC request comes from and which bucket it draws on (none when its tier is unlimited). */
export interface Client {
  readonly ip: string;
  readonly key?: KeyId;
  readonly tier?: Tier;
  readonly bucket?: TokenBucket;
}

/** A request refused before it is read: HTTP status, JSON-RPC error code and message. */
export interface Refusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
}

export const isRefusal = (r: Client | Refusal): r is Refusal => 'status' in r;

export class Gate {
  private readonly hostOk: (header: string | undefined) => boolean;
  private readonly address: ClientAddress;
  readonly cap: ConnectionCap | undefined;
  private readonly keys: ApiKeys | undefined;
  private readonly ipBuckets: BucketMap | undefined;
  private readonly keyBuckets: BucketMap | undefined;
  private readonly wsRate: number;
  /** Whether requests need a Client at all (limits, keys, or the access log asked for it). */
  readonly identifies: boolean;

  constructor(options: GateOptions, identify: boolean) {
    this.hostOk = hostCheck(options.allowedHosts ?? '*');
    this.address = new ClientAddress(options.trustProxy);
    const r = options.rateLimit ?? {};
    this.ipBuckets = r.ip ? new BucketMap(r.ip) : undefined;
    this.keyBuckets = r.key ? new BucketMap(r.key) : undefined;
    this.wsRate = r.ws ?? 0;
    this.keys = options.apiKeys === undefined ? undefined : new ApiKeys(options.apiKeys);
    const max = options.maxConnsPerIp ?? 0;
    this.cap = max > 0 ? new ConnectionCap(max) : undefined;
    this.identifies = identify || this.keys !== undefined || this.ipBuckets !== undefined || this.keyBuckets !== undefined || this.wsRate > 0;
  }

  /** The refusal that applies to every request, GET included: its Host. */
  check(req: IncomingMessage): Refusal | undefined {
    const host = req.headers.host;
    if (!this.hostOk(host)) return { status: 403, code: -32000, message: `Host ${JSON.stringify(host)} is not allowed (see --allowed-hosts)` };
    return undefined;
  }

  /**
   * Count the request's connection as busy under the per-IP cap until the returned release is
   * called (at the end of an HTTP request, or when a WebSocket closes); a refusal when its client
   * is at the cap; undefined when nothing is counted: no cap, a known API key (its own tier limits
   * it), or a trusted proxy that named no client.
   */
  enter(req: IncomingMessage): (() => void) | Refusal | undefined {
    const cap = this.cap;
    if (cap === undefined) return undefined;
    if (this.keys !== undefined) {
      const presented = presentedKey(req);
      if (presented !== undefined && this.keys.find(presented) !== undefined) return undefined;
    }
    const ip = this.ip(req);
    if (this.address.isTrusted(ip)) return undefined;
    if (!cap.enter(ip)) return { status: 429, code: -32005, message: `too many connections from ${ip}: at most ${cap.max} busy at once (--max-conns-per-ip)` };
    let released = false;
    return () => {
      if (released) return;
      released = true;
      cap.leave(ip);
    };
  }

  /**
   * The client of a JSON-RPC request (a POST or a WebSocket upgrade). A WebSocket connection
   * without a key gets a bucket of its own; with a key it shares the key's.
   */
  client(req: IncomingMessage, transport: 'http' | 'ws'): Client | Refusal {
    const ip = this.ip(req);
    if (this.keys !== undefined) {
      const presented = presentedKey(req);
      if (presented !== undefined) {
        const key = this.keys.find(presented);
        if (key === undefined) return { status: 401, code: -32000, message: `unknown API key "${presented.slice(0, 4)}…": check the key, or send none for the public tier` };
        return { ip, key, tier: 'key', bucket: this.keyBuckets?.get(key.id) };
      }
    }
    if (transport === 'ws') return this.wsRate > 0 ? { ip, tier: 'ws', bucket: new TokenBucket(this.wsRate) } : { ip };
    return this.ipBuckets !== undefined ? { ip, tier: 'ip', bucket: this.ipBuckets.get(ip) } : { ip };
  }

  /** The address a request counts against in the per-IP tier. */
  ip(req: IncomingMessage): string {
    return this.address.of(req.socket.remoteAddress, this.address.trustsProxies ? req.headers['x-forwarded-for'] : undefined);
  }

  /** Replace the known API keys (a reload); ignored when keys are off. */
  setApiKeys(keys: readonly string[]): void {
    this.keys?.replace(keys);
  }

  close(): void {
    this.ipBuckets?.close();
    this.keyBuckets?.close();
  }
}

/** Lets pages of origins allowed by CORS read the rate-limit headers (browsers hide them otherwise). */
const EXPOSED = 'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After';

/**
 * The rate-limit header set of a response in a limited tier: the IETF draft's RateLimit-* names
 * and the older X-RateLimit-* ones many clients read. Limit is calls per second; Remaining is
 * what may be sent at once now (at most the burst, a tenth of the limit); Reset is seconds until
 * the bucket is full again.
 */
export function rateHeaders(bucket: TokenBucket, headers: Record<string, string | number>): void {
  const now = performance.now();
  const limit = String(bucket.rate);
  const remaining = String(bucket.remaining(now));
  const reset = String(Math.ceil(bucket.resetSeconds(now)));
  headers['RateLimit-Limit'] = limit;
  headers['RateLimit-Remaining'] = remaining;
  headers['RateLimit-Reset'] = reset;
  headers['X-RateLimit-Limit'] = limit;
  headers['X-RateLimit-Remaining'] = remaining;
  headers['X-RateLimit-Reset'] = reset;
  headers['Access-Control-Expose-Headers'] = EXPOSED;
}
