/** Transaction page: status, fees, decoded input and logs, call tree, console.log lines, opcode steps. */
import { hexToBytes } from '@ethereumjs/util';
import { formatDecoded, shortHex } from '../../artifacts/artifacts.js';
import { CONSOLE_ADDRESS, decodeConsoleLog } from '../../chain/exec/console.js';
import type { Tx } from './home.js';
import { big, blockLink, ether, fields, gwei, h, type Context } from './ui.js';
import { stepsView } from './steps.js';
import { sourceView } from './source.js';

interface Receipt {
  status?: string;
  gasUsed: string;
  effectiveGasPrice?: string;
  blobGasUsed?: string;
  blobGasPrice?: string;
  contractAddress?: string | null;
  blockNumber: string;
  transactionIndex: string;
  logs: Array<{ address: string; topics: string[]; data: string; logIndex: string }>;
}

export interface Frame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gas?: string;
  gasUsed?: string;
  input?: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls?: Frame[];
}

function consoleLines(frame: Frame, out: string[] = []): string[] {
  if (frame.to?.toLowerCase() === CONSOLE_ADDRESS && frame.input) {
    const line = decodeConsoleLog(hexToBytes(frame.input as `0x${string}`));
    if (line !== undefined) out.push(line);
  }
  for (const c of frame.calls ?? []) consoleLines(c, out);
  return out;
}

async function frameReason(ctx: Context, frame: Frame): Promise<string | undefined> {
  if (frame.error === undefined) return undefined;
  const contract = await ctx.contractAt(frame.to);
  const decoded = ctx.revertText(frame.output, contract?.name) ?? frame.revertReason;
  return decoded ? `${frame.error}: ${decoded}` : frame.error;
}

const anyFailed = (f: Frame): boolean => f.error !== undefined || (f.calls ?? []).some(anyFailed);

/** The call tree as nested lists. */
function callTree(ctx: Context, frame: Frame): HTMLElement {
  const label = h('span', { class: 'frame' }, h('b', null, frame.type), ' ', ctx.addr(frame.from), ' → ', frame.to ? ctx.addr(frame.to) : '?');
  const call = h('span', { class: 'call' });
  if (frame.type !== 'CREATE' && frame.type !== 'CREATE2') void ctx.describeCall(frame.to, frame.input).then((d) => d && (call.textContent = ` ${d}`));
  const value = big(frame.value);
  const err = h('span', { class: 'bad' });
  void frameReason(ctx, frame).then((r) => r && (err.textContent = ` ✗ ${r}`));
  return h(
    'li',
    null,
    label,
    call,
    value > 0n ? ` value ${ether(value)}` : '',
    h('span', { class: 'dim' }, ` gas used ${big(frame.gasUsed)}`),
    err,
    frame.calls?.length ? h('ul', null, frame.calls.map((c) => callTree(ctx, c))) : '',
  );
}

/** A flame-style view: one row per depth, each call a bar as wide as its share of the gas. */
function flame(ctx: Context, root: Frame): HTMLElement {
  const total = Number(big(root.gasUsed)) || 1;
  const rows: HTMLElement[] = [];
  const place = (frame: Frame, depth: number, left: number) => {
    rows[depth] ??= h('div', { class: 'flame-row' });
    const width = (Number(big(frame.gasUsed)) / total) * 100;
    const bar = h('div', { class: `flame-bar${frame.error !== undefined ? ' failed' : ''}`, style: `left:${left}%;width:${Math.max(width, 0.3)}%`, title: `${frame.type} ${frame.to ?? ''} — ${big(frame.gasUsed)} gas` }, frame.type);
    void ctx.contractAt(frame.to).then((c) => c && (bar.textContent = c.name));
    rows[depth].append(bar);
    let childLeft = left;
    for (const c of frame.calls ?? []) {
      place(c, depth + 1, childLeft);
      childLeft += (Number(big(c.gasUsed)) / total) * 100;
    }
  };
  place(root, 0, 0);
  return h('div', { class: 'flame' }, rows);
}

export async function txPage(ctx: Context, root: HTMLElement, hash: string): Promise<void> {
  const rpc = ctx.rpc;
  const [tx, receipt] = await Promise.all([rpc.call<Tx | null>('eth_getTransactionByHash', [hash]), rpc.call<Receipt | null>('eth_getTransactionReceipt', [hash])]);
  if (!tx) {
    root.append(h('div', { class: 'error' }, `transaction ${hash} not found`));
    return;
  }
  const contract = await ctx.contractAt(tx.to);
  const call = await ctx.describeCall(tx.to, tx.input);
  const status = !receipt ? h('span', { class: 'dim' }, 'pending') : receipt.status === '0x0' ? h('span', { class: 'bad', id: 'tx-status' }, 'reverted') : h('span', { class: 'ok', id: 'tx-status' }, 'success');
  const fee = receipt?.effectiveGasPrice ? big(receipt.gasUsed) * big(receipt.effectiveGasPrice) : undefined;
  root.append(
    h('h1', null, 'Transaction'),
    receipt ? h('p', { class: 'nav' }, h('a', { href: `#/debug/${tx.hash}`, id: 'debug-link' }, 'step through it in the debugger')) : '',
    h(
      'section',
      { class: 'card' },
      fields([
        ['hash', h('span', { class: 'mono' }, tx.hash)],
        ['status', status],
        ['block', receipt ? [blockLink(receipt.blockNumber), `  index ${big(receipt.transactionIndex)}`] : 'pending'],
        ['from', ctx.addr(tx.from, false)],
        ['to', tx.to ? ctx.addr(tx.to, false) : receipt?.contractAddress ? ['created ', ctx.addr(receipt.contractAddress, false)] : 'contract creation'],
        ['function', call ? h('span', { class: 'mono', id: 'tx-call' }, contract ? `${contract.name}.${call}` : call) : h('span', { class: 'dim' }, tx.to ? 'plain transfer' : 'deployment')],
        ['value', ether(big(tx.value))],
        ['nonce', String(big(tx.nonce))],
        ['gas', receipt ? `${big(receipt.gasUsed)} used of ${big(tx.gas)}` : `limit ${big(tx.gas)}`],
        ['gas price', receipt?.effectiveGasPrice ? gwei(big(receipt.effectiveGasPrice)) : tx.maxFeePerGas ? `max ${gwei(big(tx.maxFeePerGas))}` : gwei(big(tx.gasPrice))],
        ['fee', fee !== undefined ? ether(fee) : '—'],
      ]),
    ),
  );
  // A blob transaction: its blob gas and fee (burned), and each blob's versioned hash.
  if (tx.blobVersionedHashes !== undefined) {
    const blobFee = receipt?.blobGasUsed && receipt.blobGasPrice ? big(receipt.blobGasUsed) * big(receipt.blobGasPrice) : undefined;
    root.append(
      h(
        'section',
        { class: 'card', id: 'tx-blobs' },
        h('h2', null, `Blobs (${tx.blobVersionedHashes.length})`),
        fields([
          ['blob gas', receipt?.blobGasUsed ? `${big(receipt.blobGasUsed)} at ${gwei(big(receipt.blobGasPrice ?? '0x0'))}` : `max ${gwei(big(tx.maxFeePerBlobGas ?? '0x0'))}`],
          ['blob fee (burned)', blobFee !== undefined ? ether(blobFee) : '—'],
          ...tx.blobVersionedHashes.map((vh, i): [string, ReturnType<typeof h>] => [`blob ${i}`, h('span', { class: 'mono' }, vh)]),
        ]),
      ),
    );
  }
  if (!receipt) return;

  // Logs, decoded with the emitting contract's ABI where known.
  const logBox = h('section', { class: 'card' }, h('h2', null, `Logs (${receipt.logs.length})`));
  for (const log of receipt.logs) {
    const c = await ctx.contractAt(log.address);
    const d = ctx.artifacts.decodeLog(log.topics, log.data, c?.name);
    logBox.append(h('div', { class: 'log' }, h('span', { class: 'dim' }, `#${big(log.logIndex)} `), ctx.addr(log.address), ' ', d ? h('span', { class: 'mono' }, formatDecoded(d)) : h('span', { class: 'mono dim' }, `${log.topics[0] ? shortHex(log.topics[0], 6) : 'anonymous'} data ${(log.data.length - 2) / 2} bytes`)));
  }
  root.append(logBox);

  // Call tree (callTracer), its revert reason, console.log lines and the gas flame view.
  const traceBox = h('section', { class: 'card' }, h('h2', null, 'Call tree'));
  root.append(traceBox);
  let callTrace: Frame | undefined;
  try {
    const trace = await rpc.call<Frame>('debug_traceTransaction', [hash, { tracer: 'callTracer' }]);
    callTrace = trace;
    const reason = await frameReason(ctx, trace);
    if (reason) traceBox.append(h('div', { class: 'revert', id: 'revert-reason' }, `reverted: ${reason}`));
    traceBox.append(h('ul', { class: 'tree', id: 'call-tree' }, callTree(ctx, trace)), h('h3', null, 'Gas by call'), flame(ctx, trace));
    const lines = consoleLines(trace);
    if (lines.length) root.append(h('section', { class: 'card' }, h('h2', null, 'console.log'), h('pre', { id: 'console-lines' }, lines.join('\n'))));
  } catch (err) {
    traceBox.append(h('p', { class: 'dim' }, `no call trace: ${(err as Error).message}`));
  }
  if (receipt.status === '0x0' || (callTrace !== undefined && anyFailed(callTrace))) await sourceView(ctx, root, hash);
  root.append(stepsView(ctx, hash));
}
