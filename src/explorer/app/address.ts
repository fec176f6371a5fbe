/**
 * Address page: balance, nonce, code, its transactions, the storage slots they touched, and who
 * deployed it. Transactions come from Otterscan's search where the node has it, else from a scan
 * of recent blocks.
 */
import type { Block, Tx } from './home.js';
import { RpcError } from './rpc.js';
import { big, blockLink, ether, fields, h, table, txLink, type Context } from './ui.js';

/** Blocks scanned back from the head when the node has no address index. */
const SCAN_BLOCKS = 512;
const MAX_TXS = 25;

interface Found {
  txs: Tx[];
  creator?: { hash: string; creator: string };
}

async function viaOtterscan(ctx: Context, address: string): Promise<Found | undefined> {
  try {
    const [search, creator] = await Promise.all([
      ctx.rpc.call<{ txs: Tx[] }>('ots_searchTransactionsBefore', [address, 0, MAX_TXS]),
      ctx.rpc.call<{ hash: string; creator: string } | null>('ots_getContractCreator', [address]).catch(() => null),
    ]);
    return { txs: search.txs, creator: creator ?? undefined };
  } catch (err) {
    if (err instanceof RpcError) return undefined;
    throw err;
  }
}

async function viaScan(ctx: Context, address: string): Promise<Found> {
  const a = address.toLowerCase();
  const head = big(await ctx.rpc.call<string>('eth_blockNumber'));
  const txs: Tx[] = [];
  const creates: Tx[] = [];
  for (let top = head; top >= 0n && txs.length < MAX_TXS && head - top < BigInt(SCAN_BLOCKS); top -= 64n) {
    const calls: Array<[string, unknown[]]> = [];
    for (let n = top; n > top - 64n && n >= 0n; n--) calls.push(['eth_getBlockByNumber', ['0x' + n.toString(16), true]]);
    const blocks = await ctx.rpc.batch<Block | null>(calls);
    for (const b of blocks) {
      if (!b || b instanceof Error) continue;
      for (const t of [...b.transactions].reverse()) {
        if (typeof t === 'string') continue;
        if (t.to === null) creates.push(t);
        if (t.from.toLowerCase() === a || t.to?.toLowerCase() === a) txs.push(t);
      }
    }
  }
  let creator: Found['creator'];
  const receipts = await ctx.rpc.batch<{ contractAddress?: string | null } | null>(creates.map((t) => ['eth_getTransactionReceipt', [t.hash]]));
  receipts.forEach((r, i) => {
    if (r && !(r instanceof Error) && r.contractAddress?.toLowerCase() === a) {
      creator = { hash: creates[i].hash, creator: creates[i].from };
      txs.push(creates[i]);
    }
  });
  const seen = new Set<string>();
  return { txs: txs.filter((t) => !seen.has(t.hash) && seen.add(t.hash)).slice(0, MAX_TXS), creator };
}

/** Storage keys of `address` that its transactions read or wrote (prestate tracer). */
async function touchedSlots(ctx: Context, address: string, txs: Tx[]): Promise<string[]> {
  const a = address.toLowerCase();
  const traces = await ctx.rpc.batch<Record<string, { storage?: Record<string, string> }>>(txs.slice(0, 10).map((t) => ['debug_traceTransaction', [t.hash, { tracer: 'prestateTracer' }]]));
  const slots = new Set<string>();
  for (const t of traces) {
    if (!t || t instanceof Error) continue;
    for (const [addr, account] of Object.entries(t)) if (addr.toLowerCase() === a) for (const k of Object.keys(account.storage ?? {})) slots.add(k);
  }
  return [...slots].sort();
}

export async function addressPage(ctx: Context, root: HTMLElement, address: string): Promise<void> {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) {
    root.append(h('div', { class: 'error' }, `not an address: ${address}`));
    return;
  }
  const rpc = ctx.rpc;
  const [balance, nonce, code] = await Promise.all([rpc.call<string>('eth_getBalance', [address, 'latest']), rpc.call<string>('eth_getTransactionCount', [address, 'latest']), rpc.call<string>('eth_getCode', [address, 'latest'])]);
  const contract = await ctx.contractAt(address);
  const found = (await viaOtterscan(ctx, address)) ?? (await viaScan(ctx, address));
  const codeSize = (code.length - 2) / 2;
  root.append(
    h('h1', null, contract ? `${contract.name} ` : codeSize > 0 ? 'Contract ' : 'Account ', h('span', { class: 'mono small' }, address)),
    h(
      'section',
      { class: 'card' },
      fields([
        ['balance', h('span', { id: 'balance' }, ether(big(balance)))],
        ['nonce', String(big(nonce))],
        ['code', codeSize > 0 ? `${codeSize} bytes${contract ? ` (${contract.name})` : ''}` : 'none'],
        ['deployed by', found.creator ? [ctx.addr(found.creator.creator), ' in ', txLink(found.creator.hash)] : codeSize > 0 ? h('span', { class: 'dim' }, 'not found in recent blocks') : '—'],
      ]),
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', null, `Transactions (${found.txs.length}${found.txs.length === MAX_TXS ? '+' : ''})`),
      found.txs.length === 0
        ? h('p', { class: 'dim' }, 'none found')
        : table(
            ['hash', 'block', 'from', 'to', 'value'],
            found.txs.map((t) => [txLink(t.hash), t.blockNumber ? blockLink(t.blockNumber) : 'pending', ctx.addr(t.from), t.to ? ctx.addr(t.to) : h('span', { class: 'dim' }, 'create'), ether(big(t.value))]),
          ),
    ),
  );
  if (codeSize === 0) return;
  const slots = await touchedSlots(ctx, address, found.txs).catch(() => [] as string[]);
  const values = await rpc.batch<string>(slots.map((s) => ['eth_getStorageAt', [address, s, 'latest']]));
  root.append(
    h(
      'section',
      { class: 'card' },
      h('h2', null, `Storage slots its transactions touched (${slots.length})`),
      slots.length === 0 ? h('p', { class: 'dim' }, 'none') : table(['slot', 'value now'], slots.map((s, i) => [h('span', { class: 'mono' }, s), h('span', { class: 'mono' }, values[i] instanceof Error ? '?' : String(values[i]))])),
    ),
  );
}
