/** Home: the chain at a glance, dev accounts, live blocks and transactions, the gas chart, controls. */
import { RpcError } from './rpc.js';
import { ago, big, blockLink, ether, gwei, h, table, txLink, type Context } from './ui.js';
import { controls } from './controls.js';

export interface Block {
  number: string;
  hash: string;
  timestamp: string;
  gasUsed: string;
  gasLimit: string;
  baseFeePerGas?: string;
  miner: string;
  parentHash: string;
  transactions: Array<string | Tx>;
}

export interface Tx {
  hash: string;
  from: string;
  to: string | null;
  value: string;
  input: string;
  nonce: string;
  gas: string;
  gasPrice?: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  maxFeePerBlobGas?: string;
  blobVersionedHashes?: string[];
  type?: string;
  blockNumber?: string | null;
  transactionIndex?: string | null;
}

const RECENT = 30;

/** Automine, interval or manual, from the methods node-rpc, anvil and hardhat share. */
async function miningMode(ctx: Context): Promise<string> {
  const [auto, interval] = await ctx.rpc.batch<unknown>([
    ['anvil_getAutomine', []],
    ['anvil_getIntervalMining', []],
  ]);
  if (auto === true) return 'automine';
  if (typeof interval === 'number' && interval > 0) return `every ${interval / 1000} s`;
  if (auto instanceof RpcError) return 'unknown';
  return 'manual (no automine)';
}

/** Gas used per block as SVG bars, newest on the right. */
export function gasChart(blocks: Block[]): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  const w = 600;
  const ht = 90;
  svg.setAttribute('viewBox', `0 0 ${w} ${ht + 14}`);
  svg.setAttribute('class', 'chart');
  svg.setAttribute('role', 'img');
  const sorted = [...blocks].sort((a, b) => Number(big(a.number) - big(b.number)));
  const max = sorted.reduce((m, b) => (big(b.gasUsed) > m ? big(b.gasUsed) : m), 1n);
  const bw = w / RECENT;
  sorted.forEach((b, i) => {
    const used = big(b.gasUsed);
    const barH = Math.max(1, Number((used * BigInt(ht)) / max));
    const rect = document.createElementNS(ns, 'rect');
    rect.setAttribute('x', String(i * bw + 1));
    rect.setAttribute('y', String(ht - barH));
    rect.setAttribute('width', String(bw - 2));
    rect.setAttribute('height', String(barH));
    const title = document.createElementNS(ns, 'title');
    title.textContent = `block ${big(b.number)}: ${used} gas`;
    rect.append(title);
    svg.append(rect);
  });
  const label = document.createElementNS(ns, 'text');
  label.setAttribute('x', '0');
  label.setAttribute('y', String(ht + 12));
  label.textContent = `gas used, last ${sorted.length} blocks (max ${max})`;
  svg.append(label);
  return svg;
}

export async function homePage(ctx: Context, root: HTMLElement, onLeave: (fn: () => void) => void): Promise<void> {
  const rpc = ctx.rpc;
  const [chainId, head, gasPrice, accounts] = await Promise.all([
    rpc.call<string>('eth_chainId'),
    rpc.call<string>('eth_blockNumber'),
    rpc.call<string>('eth_gasPrice'),
    rpc.call<string[]>('eth_accounts').catch(() => [] as string[]),
  ]);
  const headNum = big(head);
  const from = headNum >= BigInt(RECENT - 1) ? headNum - BigInt(RECENT - 1) : 0n;
  const numbers: bigint[] = [];
  for (let n = headNum; n >= from; n--) numbers.push(n);
  const fetched = await rpc.batch<Block | null>(numbers.map((n) => ['eth_getBlockByNumber', ['0x' + n.toString(16), true]]));
  const blocks = fetched.filter((b): b is Block => b !== null && !(b instanceof Error));
  const mode = await miningMode(ctx);

  const stat = (label: string, value: string, id?: string) => h('div', { class: 'stat' }, h('div', { class: 'label' }, label), h('div', { class: 'value', id }, value));
  const latest = blocks[0];
  root.append(
    h('section', { class: 'stats' }, stat('chain id', String(big(chainId))), stat('head', `#${headNum}`, 'head'), stat('gas price', gwei(big(gasPrice))), stat('base fee', latest?.baseFeePerGas ? gwei(big(latest.baseFeePerGas)) : '—', 'basefee'), stat('mining', mode, 'mining')),
  );
  const chartBox = h('section', { class: 'card' }, gasChart(blocks));
  root.append(chartBox);

  const accountRows = accounts.length
    ? await rpc.batch<string>(accounts.flatMap((a) => [['eth_getBalance', [a, 'latest']] as [string, unknown[]], ['eth_getTransactionCount', [a, 'latest']] as [string, unknown[]]]))
    : [];
  root.append(
    h(
      'section',
      { class: 'card' },
      h('h2', null, 'Dev accounts'),
      accounts.length === 0
        ? h('p', { class: 'dim' }, 'this node has no unlocked accounts')
        : table(
            ['#', 'address', 'balance', 'nonce'],
            accounts.map((a, i) => [String(i), ctx.addr(a, false), ether(big(accountRows[2 * i] as string)), String(big(accountRows[2 * i + 1] as string))]),
          ),
    ),
  );

  const blockList = h('tbody', { id: 'blocks' });
  const txList = h('tbody', { id: 'txs' });
  const blockRow = (b: Block) => h('tr', null, h('td', null, blockLink(b.number)), h('td', null, ago(big(b.timestamp))), h('td', null, String(b.transactions.length)), h('td', null, String(big(b.gasUsed))));
  const txRow = (t: Tx, status: string) => h('tr', null, h('td', null, txLink(t.hash)), h('td', null, ctx.addr(t.from)), h('td', null, t.to ? ctx.addr(t.to) : h('span', { class: 'dim' }, 'create')), h('td', null, ether(big(t.value))), h('td', { class: 'status' }, status));
  for (const b of blocks.slice(0, 10)) blockList.append(blockRow(b));
  for (const b of blocks) for (const t of b.transactions) if (typeof t !== 'string' && txList.childElementCount < 15) txList.append(txRow(t, `#${big(b.number)}`));
  root.append(
    h(
      'div',
      { class: 'columns' },
      h('section', { class: 'card' }, h('h2', null, 'Latest blocks'), h('table', null, h('thead', null, h('tr', null, ['block', 'age', 'txs', 'gas used'].map((c) => h('th', null, c)))), blockList)),
      h('section', { class: 'card' }, h('h2', null, 'Latest transactions'), h('table', null, h('thead', null, h('tr', null, ['hash', 'from', 'to', 'value', 'where'].map((c) => h('th', null, c)))), txList)),
    ),
  );
  root.append(controls(ctx, () => location.reload()));

  // Live: new heads and pending transactions.
  let shownHead = headNum;
  const unsubs = await Promise.all([
    rpc.subscribe('newHeads', (value) => {
      const header = value as Block;
      void rpc.call<Block | null>('eth_getBlockByNumber', [header.number, true]).then((b) => {
        if (!b) return;
        // Answers may overtake each other when many blocks come at once: the head only moves up.
        if (big(b.number) > shownHead) {
          shownHead = big(b.number);
          document.getElementById('head')!.textContent = `#${shownHead}`;
          if (b.baseFeePerGas) document.getElementById('basefee')!.textContent = gwei(big(b.baseFeePerGas));
        }
        blockList.prepend(blockRow(b));
        while (blockList.childElementCount > 10) blockList.lastElementChild!.remove();
        for (const t of [...b.transactions].reverse()) {
          if (typeof t === 'string') continue;
          const pendingRow = document.getElementById(`pending-${t.hash}`);
          if (pendingRow) pendingRow.remove();
          txList.prepend(txRow(t, `#${big(b.number)}`));
        }
        while (txList.childElementCount > 15) txList.lastElementChild!.remove();
        blocks.unshift(b);
        blocks.length = Math.min(blocks.length, RECENT);
        chartBox.replaceChildren(gasChart(blocks));
      });
    }),
    rpc
      .subscribe('newPendingTransactions', (value) => {
        const hash = value as string;
        void rpc.call<Tx | null>('eth_getTransactionByHash', [hash]).then((t) => {
          if (!t || t.blockNumber) return;
          const row = txRow(t, 'pending');
          row.id = `pending-${t.hash}`;
          txList.prepend(row);
        });
      })
      .catch(() => () => undefined),
  ]);
  onLeave(() => unsubs.forEach((u) => u()));
}

