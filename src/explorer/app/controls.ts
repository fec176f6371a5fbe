/** Test controls as buttons: each calls the same anvil_/evm_ method a script would. */
import { h, type Context } from './ui.js';

const SNAPSHOTS_KEY = 'node-rpc-explorer-snapshots';

function savedSnapshots(): string[] {
  try {
    const list = JSON.parse(sessionStorage.getItem(SNAPSHOTS_KEY) ?? '[]') as unknown;
    return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export function controls(ctx: Context, refresh: () => void): HTMLElement {
  const rpc = ctx.rpc;
  const status = h('div', { class: 'control-status', id: 'control-status' });
  const run = (what: string, fn: () => Promise<unknown>) => async () => {
    status.textContent = `${what}…`;
    status.className = 'control-status';
    try {
      const result = await fn();
      status.textContent = `${what}: done${result !== undefined && result !== null && result !== true ? ` (${JSON.stringify(result)})` : ''}`;
    } catch (err) {
      status.textContent = `${what}: ${(err as Error).message}`;
      status.className = 'control-status error';
    }
  };
  const count = h('input', { type: 'number', min: '1', value: '10', id: 'mine-count', 'aria-label': 'blocks to mine' }) as HTMLInputElement;
  const seconds = h('input', { type: 'number', min: '1', value: '3600', id: 'time-seconds', 'aria-label': 'seconds' }) as HTMLInputElement;
  const who = h('input', { type: 'text', placeholder: '0x… address', id: 'impersonate-address', 'aria-label': 'address to impersonate' }) as HTMLInputElement;
  const snapList = h('span', { id: 'snapshots' });
  const drawSnapshots = () => {
    snapList.replaceChildren(
      ...savedSnapshots().map((id) =>
        h(
          'button',
          {
            class: 'small',
            onclick: run(`revert to snapshot ${id}`, async () => {
              const ok = await rpc.call<boolean>('evm_revert', [id]);
              // A snapshot is used up by reverting to it (and so are later ones).
              const list = savedSnapshots();
              sessionStorage.setItem(SNAPSHOTS_KEY, JSON.stringify(list.slice(0, list.indexOf(id))));
              drawSnapshots();
              if (!ok) throw new Error('the node no longer has this snapshot');
              return ok;
            }),
          },
          `revert ${id}`,
        ),
      ),
    );
  };
  drawSnapshots();
  return h(
    'section',
    { class: 'card controls' },
    h('h2', null, 'Controls'),
    h('div', { class: 'row' }, h('button', { id: 'mine', onclick: run('mine', () => rpc.call('anvil_mine', ['0x' + BigInt(count.value || '1').toString(16)])) }, 'mine'), count, ' blocks'),
    h(
      'div',
      { class: 'row' },
      h(
        'button',
        {
          id: 'increase-time',
          onclick: run('increase time', async () => {
            await rpc.call('evm_increaseTime', ['0x' + BigInt(seconds.value || '0').toString(16)]);
            return rpc.call('evm_mine');
          }),
        },
        'increase time by',
      ),
      seconds,
      ' s and mine',
    ),
    h(
      'div',
      { class: 'row' },
      h('button', { id: 'automine-on', onclick: run('automine on', () => rpc.call('evm_setAutomine', [true])) }, 'automine on'),
      h('button', { id: 'automine-off', onclick: run('automine off', () => rpc.call('evm_setAutomine', [false])) }, 'automine off'),
    ),
    h(
      'div',
      { class: 'row' },
      h(
        'button',
        {
          id: 'snapshot',
          onclick: run('snapshot', async () => {
            const id = await rpc.call<string>('evm_snapshot');
            sessionStorage.setItem(SNAPSHOTS_KEY, JSON.stringify([...savedSnapshots(), id]));
            drawSnapshots();
            return id;
          }),
        },
        'take snapshot',
      ),
      snapList,
    ),
    h('div', { class: 'row' }, h('button', { id: 'impersonate', onclick: run('impersonate', () => rpc.call('anvil_impersonateAccount', [who.value.trim()])) }, 'impersonate'), who),
    h('div', { class: 'row' }, h('button', { class: 'secondary', onclick: refresh }, 'refresh')),
    status,
  );
}
