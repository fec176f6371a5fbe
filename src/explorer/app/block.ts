/** Block page: header fields and its transactions. */
import type { Block, Tx } from './home.js';
import { ago, big, blockLink, ether, fields, gwei, h, table, txLink, type Context } from './ui.js';

export async function blockPage(ctx: Context, root: HTMLElement, id: string): Promise<void> {
  const byHash = /^0x[0-9a-fA-F]{64}$/.test(id);
  const block = await ctx.rpc.call<Block | null>(byHash ? 'eth_getBlockByHash' : 'eth_getBlockByNumber', [byHash ? id : '0x' + BigInt(id).toString(16), true]);
  if (!block) {
    root.append(h('div', { class: 'error' }, `block ${id} not found`));
    return;
  }
  const n = big(block.number);
  const txs = block.transactions.filter((t): t is Tx => typeof t !== 'string');
  const receipts = await ctx.rpc.batch<{ status?: string; gasUsed: string } | null>(txs.map((t) => ['eth_getTransactionReceipt', [t.hash]]));
  root.append(
    h('h1', null, `Block #${n}`),
    h('div', { class: 'nav' }, n > 0n ? blockLink(n - 1n) : '', ' ← → ', blockLink(n + 1n)),
    h(
      'section',
      { class: 'card' },
      fields([
        ['hash', h('span', { class: 'mono' }, block.hash)],
        ['parent', n > 0n ? h('a', { href: `#/block/${block.parentHash}`, class: 'mono' }, block.parentHash) : block.parentHash],
        ['time', `${new Date(Number(big(block.timestamp)) * 1000).toISOString()} (${ago(big(block.timestamp))})`],
        ['gas used', `${big(block.gasUsed)} of ${big(block.gasLimit)}`],
        ['base fee', block.baseFeePerGas ? gwei(big(block.baseFeePerGas)) : '—'],
        ['miner', ctx.addr(block.miner, false)],
        ['transactions', String(txs.length)],
      ]),
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', null, 'Transactions'),
      txs.length === 0
        ? h('p', { class: 'dim' }, 'no transactions')
        : table(
            ['hash', 'from', 'to', 'value', 'gas used', 'status'],
            txs.map((t, i) => {
              const r = receipts[i];
              const ok = r && !(r instanceof Error) ? r.status !== '0x0' : undefined;
              return [txLink(t.hash), ctx.addr(t.from), t.to ? ctx.addr(t.to) : h('span', { class: 'dim' }, 'create'), ether(big(t.value)), r && !(r instanceof Error) ? String(big(r.gasUsed)) : '—', ok === undefined ? '—' : h('span', { class: ok ? 'ok' : 'bad' }, ok ? 'success' : 'reverted')];
            }),
          ),
    ),
  );
}
