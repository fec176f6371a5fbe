/** The opcode view: the struct logger's steps with stack, memory and storage, a page at a time. */
import { shortHex } from '../../artifacts/artifacts.js';
import { h, type Context } from './ui.js';

interface StructLog {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  stack?: string[];
  memory?: string[];
  storage?: Record<string, string>;
  error?: string;
}

interface StructTrace {
  gas: number;
  failed: boolean;
  returnValue: string;
  structLogs: StructLog[];
}

const PAGE = 50;

function stepRow(step: StructLog, index: number, selected: (i: number) => void): HTMLElement {
  return h('tr', { onclick: () => selected(index), class: 'step' }, h('td', null, String(index + 1)), h('td', null, String(step.pc)), h('td', { class: 'op' }, step.op), h('td', null, String(step.gas)), h('td', null, String(step.gasCost)), h('td', null, String(step.depth)), h('td', { class: 'mono' }, (step.stack ?? []).slice(-3).reverse().map((w) => shortHex(w.replace(/^0x0*(?=.)/, '0x'), 6)).join(' ')));
}

function stepDetail(step: StructLog | undefined): HTMLElement {
  if (!step) return h('div', { class: 'dim' }, 'click a step to see its stack, memory and storage');
  const stack = [...(step.stack ?? [])].reverse();
  const storage = Object.entries(step.storage ?? {});
  return h(
    'div',
    { class: 'step-detail', id: 'step-detail' },
    h('h3', null, `${step.op} at pc ${step.pc}`),
    h('h4', null, `stack (${stack.length}, top first)`),
    h('pre', null, stack.join('\n') || '—'),
    h('h4', null, `memory (${(step.memory ?? []).length} words)`),
    h('pre', null, (step.memory ?? []).map((w, i) => `${(i * 32).toString(16).padStart(4, '0')}: ${w}`).join('\n') || '—'),
    h('h4', null, `storage (${storage.length})`),
    h('pre', null, storage.map(([k, v]) => `${k}: ${v}`).join('\n') || '—'),
  );
}

export function stepsView(ctx: Context, hash: string): HTMLElement {
  const box = h('section', { class: 'card', id: 'steps' }, h('h2', null, 'Opcode steps'));
  const load = h(
    'button',
    {
      id: 'load-steps',
      onclick: async () => {
        load.remove();
        const loading = h('p', { class: 'dim' }, 'tracing…');
        box.append(loading);
        try {
          const trace = await ctx.rpc.call<StructTrace>('debug_traceTransaction', [hash, { enableMemory: true }]);
          loading.remove();
          render(trace);
        } catch (err) {
          loading.textContent = `cannot trace: ${(err as Error).message}`;
        }
      },
    },
    'load opcode steps',
  );
  box.append(load);

  const render = (trace: StructTrace) => {
    const steps = trace.structLogs;
    let page = 0;
    let selected: number | undefined;
    const body = h('tbody');
    const info = h('span', { id: 'steps-range' });
    const detail = h('div');
    const pages = Math.max(1, Math.ceil(steps.length / PAGE));
    const prev = h('button', { id: 'steps-prev', onclick: () => show(page - 1) }, '← previous');
    const next = h('button', { id: 'steps-next', onclick: () => show(page + 1) }, 'next →');
    const select = (i: number) => {
      selected = i;
      detail.replaceChildren(stepDetail(steps[i]));
    };
    const show = (p: number) => {
      page = Math.min(Math.max(p, 0), pages - 1);
      const from = page * PAGE;
      const to = Math.min(steps.length, from + PAGE);
      body.replaceChildren(...steps.slice(from, to).map((s, i) => stepRow(s, from + i, select)));
      info.textContent = steps.length ? `steps ${from + 1}–${to} of ${steps.length}` : 'no steps';
      (prev as HTMLButtonElement).disabled = page === 0;
      (next as HTMLButtonElement).disabled = page >= pages - 1;
      if (selected === undefined || selected < from || selected >= to) select(from);
    };
    box.append(
      h('p', null, `${steps.length} steps, gas ${trace.gas}${trace.failed ? ', failed' : ''}`),
      h('div', { class: 'row' }, prev, info, next),
      h('div', { class: 'steps' }, h('div', null, h('table', null, h('thead', null, h('tr', null, ['#', 'pc', 'op', 'gas', 'cost', 'depth', 'stack top'].map((c) => h('th', null, c)))), body)), detail),
    );
    show(0);
  };
  return box;
}
