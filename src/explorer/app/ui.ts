/** DOM building, number formatting and the context every page shares. */
import { Artifacts, formatDecoded, shortHex, type ContractArtifact, type Decoded } from '../../artifacts/artifacts.js';
import type { Rpc } from './rpc.js';

type Child = Node | string | number | bigint | null | undefined | false | Child[];
type Attrs = Record<string, string | number | boolean | ((e: Event) => void) | undefined>;

/** `h('div', {class: 'x', onclick: fn}, 'text', child)` */
export function h(tag: string, attrs: Attrs | null = null, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === false) continue;
      if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
      else el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el: HTMLElement, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

export const link = (href: string, text: Child, cls?: string) => h('a', { href, class: cls }, text);
export const blockLink = (n: bigint | string) => link(`#/block/${BigInt(n)}`, `#${BigInt(n)}`);
export const txLink = (hash: string, short = true) => link(`#/tx/${hash}`, short ? shortHex(hash, 6) : hash, 'mono');

/** Table with a header row. */
export function table(head: string[], rows: Child[][], cls = ''): HTMLElement {
  return h('table', { class: cls }, h('thead', null, h('tr', null, head.map((c) => h('th', null, c)))), h('tbody', null, rows.map((r) => h('tr', null, r.map((c) => h('td', null, c))))));
}

/** Label/value pairs. */
export function fields(pairs: Array<[string, Child]>): HTMLElement {
  return h('dl', { class: 'fields' }, pairs.map(([k, v]) => [h('dt', null, k), h('dd', null, v)]));
}

export const big = (hex: string | undefined | null): bigint => (hex ? BigInt(hex) : 0n);

/** Wei as ether with up to 6 decimals: `10000`, `0.5`, `1.234567`. */
export function ether(wei: bigint): string {
  const neg = wei < 0n;
  const abs = neg ? -wei : wei;
  const whole = abs / 10n ** 18n;
  const frac = (abs % 10n ** 18n).toString().padStart(18, '0').slice(0, 6).replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac ? '.' + frac : ''} ETH`;
}

export function gwei(wei: bigint): string {
  const g = Number(wei) / 1e9;
  return `${g >= 100 ? g.toFixed(0) : g.toFixed(g >= 1 ? 2 : 4).replace(/\.?0+$/, '')} gwei`;
}

export function ago(timestamp: bigint): string {
  const s = Math.round(Date.now() / 1000 - Number(timestamp));
  if (s < 5) return 'just now';
  if (s < 90) return `${s}s ago`;
  if (s < 5400) return `${Math.round(s / 60)}m ago`;
  return `${Math.round(s / 3600)}h ago`;
}

export function errorBox(err: unknown): HTMLElement {
  return h('div', { class: 'error' }, err instanceof Error ? err.message : String(err));
}

/** What every page gets: the connection, the artifacts, names of contracts seen so far. */
export class Context {
  private readonly names = new Map<string, Promise<ContractArtifact | undefined>>();

  constructor(
    readonly rpc: Rpc,
    readonly artifacts: Artifacts,
  ) {}

  /** The artifact matching the code at `address`, fetched once per address. */
  contractAt(address: string | undefined | null): Promise<ContractArtifact | undefined> {
    if (!address || this.artifacts.size === 0) return Promise.resolve(undefined);
    const key = address.toLowerCase();
    let p = this.names.get(key);
    if (!p) {
      p = this.rpc
        .call<string>('eth_getCode', [address, 'latest'])
        .then((code) => (code && code !== '0x' ? this.artifacts.match(code) : undefined))
        .catch(() => undefined);
      this.names.set(key, p);
    }
    return p;
  }

  /** An address link, with its contract name once known. */
  addr(address: string | undefined | null, short = true): HTMLElement {
    if (!address) return h('span', { class: 'dim' }, '—');
    const a = link(`#/address/${address}`, short ? shortHex(address) : address, 'mono');
    void this.contractAt(address).then((c) => {
      if (c) a.prepend(h('b', { class: 'name' }, c.name), ' ');
    });
    return a;
  }

  /** `transfer(0x7099…, 1e18)` for calldata sent to `to`, or the selector. */
  async describeCall(to: string | undefined | null, input: string | undefined): Promise<string | undefined> {
    if (!input || input.length < 10) return undefined;
    const contract = await this.contractAt(to);
    const d = this.artifacts.decodeCall(input, contract?.name);
    return d ? formatDecoded(d) : input.slice(0, 10);
  }

  /** A revert's reason: `Error(string)`, a panic or a custom error, else the raw bytes. */
  revertText(output: string | undefined, contract?: string): string | undefined {
    if (!output || output === '0x') return undefined;
    const d: Decoded | undefined = this.artifacts.decodeError(output, contract);
    if (!d) return shortHex(output, 10);
    if (d.name === 'Error' || d.name === 'Panic') return String(d.args[0]?.value);
    return formatDecoded(d);
  }
}
