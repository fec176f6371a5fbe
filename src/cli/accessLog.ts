/**
 * Access-log lines of the shared mode, one per request: for people (`text`) or for log shippers
 * (`json`, one object per line). Batches list each method once with its count.
 */
import type { AccessEntry } from '../server/access.js';

export type LogFormat = 'text' | 'json';

/** `eth_call×12,eth_blockNumber`: the methods of a request, each once, in first-seen order. */
function methodList(methods: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const m of methods) counts.set(m || '?', (counts.get(m || '?') ?? 0) + 1);
  return [...counts].map(([m, n]) => (n === 1 ? m : `${m}×${n}`)).join(',');
}

export function formatAccess(e: AccessEntry, format: LogFormat): string {
  const ms = Math.round(e.ms * 10) / 10;
  if (format === 'json') {
    return JSON.stringify({ time: new Date(e.time).toISOString(), ip: e.ip, transport: e.transport, verb: e.verb, methods: e.methods, status: e.status, ms, key: e.key });
  }
  const methods = e.methods.length === 0 ? '-' : methodList(e.methods);
  // Method names are client text: no terminal control sequences.
  const line = `${new Date(e.time).toISOString()} ${e.ip} ${e.verb} ${methods} ${e.status} ${ms}ms${e.key === undefined ? '' : ` key=${e.key}`}`;
  return line.replace(/[\x00-\x1f\x7f]/g, '\uFFFD');
}
