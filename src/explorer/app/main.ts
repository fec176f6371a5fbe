/**
 * The explorer: a one-page app speaking only public JSON-RPC over one WebSocket. It talks to the
 * node that served it, or to any node named by `?rpc=ws://…` (anvil included).
 */
import { Artifacts, type ContractArtifact } from '../../artifacts/artifacts.js';
import { addressPage } from './address.js';
import { blockPage } from './block.js';
import { debugCallPage } from './debugCall.js';
import { debugTxPage } from './debugger.js';
import { homePage } from './home.js';
import { poolPage } from './pool.js';
import { reportsPage } from './reports.js';
import { Rpc } from './rpc.js';
import { txPage } from './tx.js';
import { Context, errorBox, h } from './ui.js';

function rpcUrl(): string {
  const given = new URLSearchParams(location.search).get('rpc');
  if (given) return given;
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}`;
}

/** The artifacts the serving node found (none when it serves none, e.g. a plain file server). */
async function loadArtifacts(): Promise<Artifacts> {
  const artifacts = new Artifacts();
  try {
    const res = await fetch('explorer/artifacts.json');
    if (res.ok) for (const c of (await res.json()) as ContractArtifact[]) artifacts.add(c);
  } catch {
    // No artifacts: selectors and raw topics are shown instead of names.
  }
  return artifacts;
}

/** Search box: a block number, a block or transaction hash, or an address. */
async function search(ctx: Context, text: string): Promise<void> {
  const q = text.trim();
  if (/^\d+$/.test(q)) location.hash = `#/block/${q}`;
  else if (/^0x[0-9a-fA-F]{40}$/.test(q)) location.hash = `#/address/${q}`;
  else if (/^0x[0-9a-fA-F]{64}$/.test(q)) {
    const tx = await ctx.rpc.call<unknown>('eth_getTransactionByHash', [q]).catch(() => null);
    location.hash = tx ? `#/tx/${q}` : `#/block/${q}`;
  } else alert(`not a block number, hash or address: ${q}`);
}

async function main(): Promise<void> {
  const main = document.getElementById('main')!;
  const conn = document.getElementById('connection')!;
  const url = rpcUrl();
  let rpc: Rpc;
  try {
    rpc = await Rpc.connect(url);
  } catch (err) {
    conn.textContent = 'disconnected';
    main.replaceChildren(errorBox(err));
    return;
  }
  conn.textContent = url;
  rpc.onClose = () => {
    conn.textContent = `disconnected from ${url} — reload to reconnect`;
    conn.className = 'bad';
  };
  const ctx = new Context(rpc, await loadArtifacts());
  const form = document.getElementById('search') as HTMLFormElement;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void search(ctx, (form.elements.namedItem('q') as HTMLInputElement).value);
  });

  let leave: Array<() => void> = [];
  const route = async () => {
    for (const fn of leave) fn();
    leave = [];
    const view = h('div', { class: 'view' });
    main.replaceChildren(view);
    const [path, query] = location.hash.split('?');
    const [, page, arg] = path!.split('/');
    try {
      if (page === 'block' && arg) await blockPage(ctx, view, arg);
      else if (page === 'debug' && arg) await debugTxPage(ctx, view, arg);
      else if (page === 'debug') await debugCallPage(ctx, view, new URLSearchParams(query ?? ''));
      else if (page === 'tx' && arg) await txPage(ctx, view, arg);
      else if (page === 'address' && arg) await addressPage(ctx, view, arg);
      else if (page === 'pool') await poolPage(ctx, view, () => void route());
      else if (page === 'reports') await reportsPage(ctx, view);
      else await homePage(ctx, view, (fn) => leave.push(fn));
    } catch (err) {
      view.append(errorBox(err));
    }
    view.setAttribute('data-ready', 'true');
  };
  window.addEventListener('hashchange', () => void route());
  await route();
}

void main();
