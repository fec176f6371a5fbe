/**
 * `#/debug`: a call composed on the page (to, from, a function of the contract's ABI with its
 * arguments or raw calldata, value, block) and run in the step debugger with debug_traceCall.
 * `#/debug?to=0x…&data=0x…` fills the form in.
 */
import { encodeFunctionData, type AbiFunction } from 'viem';
import { debugView } from './debugger.js';
import type { StepTrace } from './debugModel.js';
import { errorBox, h, type Context } from './ui.js';

const hex = (n: bigint): string => '0x' + n.toString(16);

/** Arguments typed as `5, "text", [1,2]` (JSON values; integers of any size as numbers or strings). */
function parseArgs(fn: AbiFunction, text: string): unknown[] {
  const raw = text.trim() === '' ? [] : (JSON.parse(`[${text.replace(/(?<![\w"])(-?\d{16,})(?![\w"])/g, '"$1"')}]`) as unknown[]);
  if (raw.length !== fn.inputs.length) throw new Error(`${fn.name} takes ${fn.inputs.length} argument(s), got ${raw.length}`);
  return raw.map((v, i) => (/^u?int\d*$/.test(fn.inputs[i]!.type) ? BigInt(v as string | number) : v));
}

export async function debugCallPage(ctx: Context, root: HTMLElement, query: URLSearchParams): Promise<void> {
  const accounts = await ctx.rpc.call<string[]>('eth_accounts').catch(() => [] as string[]);
  const input = (id: string, placeholder: string, value = '') => h('input', { id, placeholder, value, class: 'mono', size: 66 }) as HTMLInputElement;
  const to = input('dbg-call-to', '0x… contract', query.get('to') ?? '');
  const from = input('dbg-call-from', '0x… sender (optional)', query.get('from') ?? accounts[0] ?? '');
  const data = input('dbg-call-data', '0x… calldata', query.get('data') ?? '');
  const value = input('dbg-call-value', 'wei (optional)', query.get('value') ?? '');
  const block = input('dbg-call-block', 'latest', query.get('block') ?? 'latest');
  const fnSelect = h('select', { id: 'dbg-call-function' }) as HTMLSelectElement;
  const args = input('dbg-call-args', 'arguments, e.g. 5, "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"');
  const status = h('div', { class: 'control-status', id: 'dbg-call-status' });
  const out = h('div', { id: 'dbg-call-out' });
  let functions: AbiFunction[] = [];

  const loadAbi = async () => {
    const c = /^0x[0-9a-fA-F]{40}$/.test(to.value.trim()) ? await ctx.contractAt(to.value.trim()) : undefined;
    functions = (c?.abi ?? []).filter((x): x is AbiFunction => x.type === 'function');
    fnSelect.replaceChildren(h('option', { value: '' }, c ? `${c.name}: raw calldata` : 'raw calldata'), ...functions.map((fn, i) => h('option', { value: String(i) }, `${fn.name}(${fn.inputs.map((p) => p.type).join(',')})`)));
  };
  to.addEventListener('change', () => void loadAbi());

  const run = async () => {
    status.textContent = 'tracing…';
    status.className = 'control-status';
    out.replaceChildren();
    try {
      let calldata = data.value.trim() || '0x';
      if (fnSelect.value !== '') {
        const fn = functions[Number(fnSelect.value)]!;
        calldata = encodeFunctionData({ abi: [fn], functionName: fn.name, args: parseArgs(fn, args.value) });
        data.value = calldata;
      }
      const tx: Record<string, string> = { to: to.value.trim(), data: calldata };
      if (from.value.trim()) tx.from = from.value.trim();
      if (value.value.trim()) tx.value = hex(BigInt(value.value.trim()));
      // The block is fixed once, so that every window of the trace replays the same call.
      let at = block.value.trim() || 'latest';
      if (!/^0x/.test(at)) at = /^\d+$/.test(at) ? hex(BigInt(at)) : ((await ctx.rpc.call<{ number: string }>('eth_getBlockByNumber', [at, false])).number ?? at);
      const fetch = (start: number) => ctx.rpc.call<StepTrace>('debug_traceCall', [tx, at, { tracer: 'stepTracer', tracerConfig: { from: start, count: 2000 } }]);
      status.textContent = `call at block ${BigInt(at)}`;
      await debugView(ctx, out, fetch);
    } catch (err) {
      status.textContent = '';
      out.append(errorBox(err));
    }
  };

  root.append(
    h('h1', null, 'Debug a call'),
    h(
      'section',
      { class: 'card controls' },
      h('div', { class: 'row' }, h('label', null, 'to '), to),
      h('div', { class: 'row' }, h('label', null, 'function '), fnSelect, args),
      h('div', { class: 'row' }, h('label', null, 'calldata '), data),
      h('div', { class: 'row' }, h('label', null, 'from '), from),
      h('div', { class: 'row' }, h('label', null, 'value '), value, h('label', null, ' block '), block),
      h('div', { class: 'row' }, h('button', { id: 'dbg-call-run', onclick: () => void run() }, 'debug this call')),
      status,
    ),
    out,
  );
  await loadAbi();
}
