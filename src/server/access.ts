/**
 * One request as the access log sees it. The server emits these (`onAccess`) and prints nothing:
 * the format and where lines go are the command line's business.
 */
export interface AccessEntry {
  /** When the request arrived, epoch milliseconds. */
  readonly time: number;
  /** The client address counted in the per-IP tier (X-Forwarded-For read only from trusted proxies). */
  readonly ip: string;
  readonly transport: 'http' | 'ws';
  /** The HTTP method; `WS` for a message on a WebSocket. */
  readonly verb: string;
  /** The JSON-RPC methods called, one per batch element (`''` where an element named none). */
  readonly methods: readonly string[];
  /** The HTTP status; for a WebSocket message 200, or 429 when its tier refused it. */
  readonly status: number;
  /** Time to the last byte of the answer, in milliseconds. */
  readonly ms: number;
  /** The API key's first characters (`abcd…`), for keyed requests. */
  readonly key?: string;
}
