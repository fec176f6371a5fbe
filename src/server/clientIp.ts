/**
 * The address a request counts against in the per-IP tier. It is the socket's peer, except when
 * that peer is a proxy named by --trust-proxy: then it is the rightmost `X-Forwarded-For` hop that
 * is not a trusted proxy (hops to its left were written by the client and prove nothing).
 */
import { isIP } from 'node:net';

/** `::ffff:127.0.0.1` → `127.0.0.1`: one client, one bucket, whichever socket family it used. */
export function normalizeIp(address: string): string {
  const a = address.trim().toLowerCase();
  return a.startsWith('::ffff:') && isIP(a.slice(7)) === 4 ? a.slice(7) : a;
}

export class ClientAddress {
  private readonly trusted: ReadonlySet<string>;

  constructor(trustProxy: readonly string[] = []) {
    this.trusted = new Set(trustProxy.map(normalizeIp));
  }

  get trustsProxies(): boolean {
    return this.trusted.size > 0;
  }

  isTrusted(peer: string): boolean {
    return this.trusted.has(peer);
  }

  /** The client of a request from socket peer `remote` carrying `forwarded` (X-Forwarded-For). */
  of(remote: string | undefined, forwarded: string | string[] | undefined): string {
    const peer = normalizeIp(remote ?? '?');
    if (forwarded === undefined || !this.trusted.has(peer)) return peer;
    const hops = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded).split(',');
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = normalizeIp(hops[i]);
      if (isIP(hop) === 0) return peer; // garbage in the chain: count the proxy itself
      if (!this.trusted.has(hop)) return hop;
    }
    return peer;
  }
}
