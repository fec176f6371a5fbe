/** Pool page: pending and queued transactions per sender, nonce gaps marked, each droppable. */
import type { Tx } from './home.js';
import { big, ether, gwei, h, txLink, type Context } from './ui.js';

type Content = Record<'pending' | 'queued', Record<string, Record<string, Tx>>>;

export async function poolPage(ctx: Context, root: HTMLElement, reload: () => void): Promise<void> {
  const content = await ctx.rpc.call<Content>('txpool_content');
  const senders = [...new Set([...Object.keys(content.pending ?? {}), ...Object.keys(content.queued ?? {})])];
  const nonces = await ctx.rpc.batch<string>(senders.map((s) => ['eth_getTransactionCount', [s, 'latest']]));
  const status = h('div', { class: 'control-status', id: 'pool-status' });
  const drop = (hash: string) => async () => {
    try {
      await ctx.rpc.call('anvil_dropTransaction', [hash]);
      reload();
    } catch (err) {
      status.textContent = `drop: ${(err as Error).message}`;
      status.className = 'control-status error';
    }
  };
  const rows: HTMLElement[] = [];
  senders.forEach((sender, i) => {
    const entries = [...Object.values(content.pending?.[sender] ?? {}).map((t) => ({ t, queue: 'pending' })), ...Object.values(content.queued?.[sender] ?? {}).map((t) => ({ t, queue: 'queued' }))].sort((a, b) => Number(big(a.t.nonce) - big(b.t.nonce)));
    let expected = nonces[i] instanceof Error ? undefined : big(nonces[i] as string);
    for (const { t, queue } of entries) {
      const n = big(t.nonce);
      if (expected !== undefined && n > expected) {
        rows.push(h('tr', { class: 'gap' }, h('td', { colspan: 7 }, `nonce gap: ${sender} is missing nonce${n - expected > 1n ? `s ${expected}–${n - 1n}` : ` ${expected}`}`)));
      }
      expected = n + 1n;
      rows.push(h('tr', { class: queue }, h('td', null, queue), h('td', null, txLink(t.hash)), h('td', null, ctx.addr(sender)), h('td', null, String(n)), h('td', null, t.to ? ctx.addr(t.to) : 'create'), h('td', null, `${ether(big(t.value))}, ${gwei(big(t.maxFeePerGas ?? t.gasPrice))}`), h('td', null, h('button', { class: 'small drop', onclick: drop(t.hash) }, 'drop'))));
    }
  });
  root.append(
    h('h1', null, 'Transaction pool'),
    h(
      'section',
      { class: 'card' },
      rows.length === 0
        ? h('p', { class: 'dim', id: 'pool-empty' }, 'the pool is empty')
        : h('table', { id: 'pool' }, h('thead', null, h('tr', null, ['queue', 'hash', 'from', 'nonce', 'to', 'value, fee cap', ''].map((c) => h('th', null, c)))), h('tbody', null, rows)),
      status,
    ),
  );
}
