/**
 * API keys of the authenticated tier: where a request carries one, and whether it is known.
 *
 * Keys are kept only as SHA-256 digests and a presented key is compared, digest to digest, with
 * every known one by `timingSafeEqual` (no early exit), so the time an answer takes says nothing
 * about how much of a key was right. A key is never logged whole: `keyPrefix` shows its first
 * four characters.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A key is 1 to 256 visible ASCII characters without `/`, `?` or `#` (it may be a path segment). */
export function isValidKey(key: string): boolean {
  return /^[\x21-\x7e]{1,256}$/.test(key) && !/[/?#]/.test(key);
}

/** `abcd…`: enough to tell keys apart in a log, too little to use. */
export function keyPrefix(key: string): string {
  return `${key.slice(0, 4)}…`;
}

const digest = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

/** A known key: its bucket id (the digest in hex, stable across reloads) and its log prefix. */
export interface KeyId {
  readonly id: string;
  readonly prefix: string;
}

export class ApiKeys {
  private known: Array<{ digest: Buffer; key: KeyId }> = [];

  constructor(keys: readonly string[]) {
    this.replace(keys);
  }

  /** Put this list in place of the known keys (a reload of the key file). */
  replace(keys: readonly string[]): void {
    this.known = [...new Set(keys)].map((k) => {
      const d = digest(k);
      return { digest: d, key: { id: d.toString('hex'), prefix: keyPrefix(k) } };
    });
  }

  get size(): number {
    return this.known.length;
  }

  /** The known key equal to `presented`, compared with every known key in constant time. */
  find(presented: string): KeyId | undefined {
    const d = digest(presented);
    let found: KeyId | undefined;
    for (const k of this.known) if (timingSafeEqual(k.digest, d)) found = k.key;
    return found;
  }
}

/**
 * The key a request presents, if any: `Authorization: Bearer <key>`, `X-API-Key: <key>`, or the
 * path `/<key>` or `/v1/<key>` (query string ignored). Other paths carry no key.
 */
export function presentedKey(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  if (auth !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m) return m[1];
  }
  const header = req.headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return header.trim();
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const m = /^\/(?:v1\/)?([^/]+)\/?$/.exec(path);
  if (m === null || m[1] === 'v1') return undefined;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}
