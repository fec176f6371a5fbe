/**
 * CORS: which web origins may read the node's answers. `*` (dev mode) lets any page; a list
 * answers a listed Origin with itself (and `Vary: Origin`, so caches keep answers apart); none
 * (the shared mode's default) sends no Access-Control-Allow-Origin, so browsers keep answers from
 * pages. Non-browser clients are not affected either way.
 */

/** Headers to add for a request's Origin; the same object for every request in `*` mode. */
export type CorsHeaders = (origin: string | undefined) => Readonly<Record<string, string>>;

const ANY: Readonly<Record<string, string>> = Object.freeze({ 'Access-Control-Allow-Origin': '*' });
const NONE: Readonly<Record<string, string>> = Object.freeze({});
const VARY: Readonly<Record<string, string>> = Object.freeze({ Vary: 'Origin' });

export function corsHeaders(origins: readonly string[] | '*'): CorsHeaders {
  if (origins === '*' || origins.includes('*')) return () => ANY;
  if (origins.length === 0) return () => NONE;
  const allowed = new Set(origins.map((o) => o.replace(/\/+$/, '').toLowerCase()));
  return (origin) => (origin !== undefined && allowed.has(origin.toLowerCase()) ? { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' } : VARY);
}
