/**
 * The Host-header allow-list, against DNS rebinding: a web page on `evil.example` whose name is
 * made to resolve to 127.0.0.1 reaches a local node with `Host: evil.example`; refusing names the
 * node does not go by keeps that page from reading answers (and from sending transactions from
 * unlocked accounts). Only the name counts, not the port.
 */
import { networkInterfaces } from 'node:os';

/** Names a local node is always reached by. */
export const LOCAL_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '::1'];

/** `Host` without its port and brackets, lower case: `[::1]:8545` → `::1`. */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end === -1 ? h : h.slice(1, end);
  }
  const colon = h.indexOf(':');
  // One colon is a port; more is a bare IPv6 address.
  return colon !== -1 && colon === h.lastIndexOf(':') ? h.slice(0, colon) : h;
}

/** The dev-mode list: the local names, the bound address, and every local address when bound to all. */
export function devHosts(bound: string): string[] {
  const names = new Set([...LOCAL_HOSTS, hostName(bound)]);
  if (bound === '0.0.0.0' || bound === '::' || bound === '') {
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) names.add(a.address.toLowerCase());
  }
  return [...names];
}

/** A test of Host headers: `*` lets any through; a request without Host (HTTP/1.0) passes. */
export function hostCheck(allowed: readonly string[] | '*'): (header: string | undefined) => boolean {
  if (allowed === '*' || allowed.includes('*')) return () => true;
  // hostName leaves a bare IPv6 address whole (more than one colon); node:net's isIP would cost
  // about 3 ms of every start compiling its IPv6 pattern.
  const names = new Set(allowed.map(hostName));
  // Clients send the same Host on every request: remember the last one let through.
  let lastOk: string | undefined;
  return (header) => {
    if (header === undefined || header === lastOk) return true;
    if (!names.has(hostName(header))) return false;
    lastOk = header;
    return true;
  };
}
