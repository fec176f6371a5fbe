/**
 * The step debugger (`#/debug/<tx hash>`, and `#/debug` for a call composed on the page): the
 * Solidity source with the current line, the Solidity call stack, the EVM stack, memory and
 * storage at each step; stepping by source line (into, over, out, back) and by instruction,
 * breakpoints on source lines, the revert and each caught failure one click away. Code without a
 * source map is stepped by instruction. It reads the node's stepTracer over JSON-RPC, a window
 * of opcode detail at a time.
 */
import { DebugModel, type StepTrace } from './debugModel.js';
import { h, type Context } from './ui.js';

/** Steps of opcode detail fetched at a time. */
const WINDOW = 2000;

type Fetch = (from: number) => Promise<StepTrace>;

const pad = (word: string): string => '0x' + word.replace(/^0x/, '').padStart(64, '0');

export async function debugTxPage(ctx: Context, root: HTMLElement, hash: string): Promise<void> {
  const fetch: Fetch = (from) => ctx.rpc.call<StepTrace>('debug_traceTransaction', [hash, { tracer: 'stepTracer', tracerConfig: { from, count: WINDOW } }]);
  root.append(h('h1', null, 'Debugger'), h('p', { class: 'small' }, 'transaction ', h('a', { href: `#/tx/${hash}`, class: 'mono' }, hash)));
  await debugView(ctx, root, fetch);
}

/** Run the debugger over `fetch`'s trace in `root`. */
export async function debugView(ctx: Context, root: HTMLElement, fetch: Fetch): Promise<void> {
  const model = new DebugModel(await fetch(0));
  const trace = model.trace;
  if (trace.steps === 0) {
    root.append(h('p', { class: 'dim' }, 'no code ran: nothing to step through'));
    return;
  }
  const breakpoints = new Set<string>();
  let pos = 0;
  let renders = 0;
  let loading: Promise<void> | undefined;

  const stepInfo = h('span', { id: 'dbg-step', class: 'mono' });
  const slider = h('input', { type: 'range', id: 'dbg-slider', min: '0', max: String(model.steps - 1), value: '0', 'aria-label': 'step', class: 'dbg-slider' }) as HTMLInputElement;
  slider.addEventListener('input', () => go(Number(slider.value)));
  const opInfo = h('div', { id: 'dbg-op', class: 'mono small' });
  const fileTitle = h('h3', { id: 'dbg-file' });
  const source = h('div', { class: 'dbg-source', id: 'dbg-source' });
  const callStack = h('ol', { class: 'source-stack', id: 'dbg-callstack' });
  const stackPane = h('ol', { class: 'dbg-words', id: 'dbg-stack', start: '0' });
  const memoryPane = h('pre', { class: 'dbg-memory', id: 'dbg-memory' });
  const storageTitle = h('h4', { id: 'dbg-storage-title' }, 'storage');
  const storagePane = h('tbody', { id: 'dbg-storage' });
  const opcodes = h('tbody', { id: 'dbg-opcodes' });
  let shownFile: string | undefined;

  const go = (n: number) => {
    pos = Math.max(0, Math.min(model.steps - 1, n));
    void render();
  };
  const button = (id: string, label: string, title: string, target: () => number) => h('button', { id, class: 'small', title, onclick: () => go(target()) }, label);

  /** The current file's lines, with a gutter toggling breakpoints. */
  const showFile = (file: string) => {
    shownFile = file;
    fileTitle.textContent = file;
    const text = trace.sources[file] ?? '';
    source.replaceChildren(
      ...text.split('\n').map((code, i) => {
        const line = i + 1;
        const key = `${file}:${line}`;
        const ln = h('span', { class: 'ln', title: 'toggle breakpoint' }, String(line));
        const row = h('div', { class: `src-line${breakpoints.has(key) ? ' bp' : ''}`, 'data-line': line }, ln, h('span', { class: 'code' }, code || ' '));
        ln.addEventListener('click', () => {
          if (breakpoints.has(key)) breakpoints.delete(key);
          else breakpoints.add(key);
          row.classList.toggle('bp', breakpoints.has(key));
        });
        return row;
      }),
    );
  };

  const render = async () => {
    const n = pos;
    if (!model.inWindow(n)) {
      loading ??= fetch(Math.max(0, n - WINDOW / 4))
        .then((t) => model.setWindow(t))
        .finally(() => (loading = undefined));
      stackPane.replaceChildren(h('li', { class: 'dim' }, 'loading…'));
      try {
        await loading;
      } catch (err) {
        stackPane.replaceChildren(h('li', { class: 'bad' }, `cannot trace this part: ${(err as Error).message}`));
        return;
      }
      if (pos !== n) return;
    }
    const w = model.step(n);
    const f = model.frameAt(n);
    const frame = trace.frames[f]!;
    stepInfo.textContent = `step ${n + 1} of ${model.steps}`;
    slider.value = String(n);
    opInfo.textContent = w ? `pc ${w.pc}  ${w.op}  gas ${w.g}  cost ${w.c}  depth ${frame.depth}  ${frame.contract ?? ''} ${frame.address ?? ''}` : '';
    const loc = model.locationAt(n);
    if (loc) {
      if (shownFile !== loc.file) showFile(loc.file);
      for (const el of source.querySelectorAll('.current')) el.classList.remove('current');
      const row = source.querySelector(`[data-line="${loc.line}"]`);
      row?.classList.add('current');
      row?.scrollIntoView({ block: 'nearest' });
    } else {
      shownFile = undefined;
      fileTitle.textContent = `${frame.contract ?? frame.address ?? '?'}: no source map, stepping by instruction`;
      source.replaceChildren();
    }
    callStack.replaceChildren(...model.callStack(n).map((s) => h('li', null, s.file ? `${s.name}  ${s.file}:${s.line}` : s.name)));
    const stack = model.stack(n) ?? [];
    stackPane.replaceChildren(...[...stack].reverse().map((word) => h('li', { class: 'mono' }, pad(word))));
    const mem = model.memory(n) ?? [];
    memoryPane.textContent = mem.map((word, i) => `${(i * 32).toString(16).padStart(4, '0')}: ${word}`).join('\n') || '—';
    storageTitle.textContent = `storage of ${frame.contract ?? 'account'} ${frame.address ?? ''}`;
    storagePane.replaceChildren(
      ...model.storage(n, frame.address).map((s) => h('tr', { class: s.changed ? 'changed' : '' }, h('td', { class: 'mono' }, pad(s.slot)), h('td', { class: 'mono' }, pad(s.value)), h('td', { class: 'mono dim' }, s.changed ? `was ${pad(s.original)}` : ''))),
    );
    // The frame's instructions around this one.
    const rows: HTMLElement[] = [];
    for (let i = n - 8; i <= n + 8; i++) {
      const s = model.step(i);
      if (!s || s.f !== f) continue;
      rows.push(h('tr', { class: i === n ? 'current' : 'step', onclick: () => go(i) }, h('td', null, String(i + 1)), h('td', null, String(s.pc)), h('td', { class: 'op' }, s.op), h('td', null, String(s.g))));
    }
    opcodes.replaceChildren(...rows);
    root.setAttribute('data-step', String(n));
    root.setAttribute('data-renders', String(++renders));
  };

  const failures = trace.frames
    .map((fr, i) => ({ fr, i }))
    .filter(({ fr }) => fr.failStep !== null && (fr.parent < 0 || trace.frames[fr.parent]!.error === null || trace.frames[fr.parent]!.failStep !== fr.failStep));
  root.append(
    trace.revert ? h('div', { class: 'revert', id: 'dbg-revert-message' }, trace.revert.message) : '',
    trace.truncated ? h('p', { class: 'dim' }, 'this transaction changes source lines too often to index them all: stepping by line ends early') : '',
    h(
      'div',
      { class: 'card dbg-toolbar' },
      h(
        'div',
        { class: 'row' },
        button('dbg-start', 'start', 'first step', () => 0),
        button('dbg-reverse', '« breakpoint', 'back to the previous breakpoint', () => model.toBreakpoint(pos, breakpoints, false)),
        button('dbg-back', '← line', 'back one source line', () => model.stepBack(pos)),
        button('dbg-into', 'step into', 'next source line, into calls', () => model.stepInto(pos)),
        button('dbg-over', 'step over', 'next source line in this function', () => model.stepOver(pos, breakpoints)),
        button('dbg-out', 'step out', 'back in the caller', () => model.stepOut(pos, breakpoints)),
        button('dbg-continue', 'breakpoint »', 'on to the next breakpoint', () => model.toBreakpoint(pos, breakpoints, true)),
        button('dbg-end', 'end', 'last step', () => model.steps - 1),
      ),
      h(
        'div',
        { class: 'row' },
        button('dbg-op-prev', '← op', 'previous instruction', () => pos - 1),
        button('dbg-op-next', 'op →', 'next instruction', () => pos + 1),
        trace.revert ? button('dbg-revert', 'jump to the revert', 'where the failure began', () => trace.revert!.step) : '',
        failures
          .filter(({ fr }) => fr.failStep !== trace.revert?.step)
          .map(({ fr, i }, k) => h('button', { class: 'small secondary dbg-caught', id: `dbg-caught-${k}`, 'data-frame': i, onclick: () => go(fr.failStep!) }, `caught: ${fr.contract ?? fr.to ?? '?'} ${fr.message ?? ''}`)),
        stepInfo,
      ),
      h('div', { class: 'row' }, slider),
      opInfo,
    ),
    h(
      'div',
      { class: 'dbg-grid' },
      h('section', { class: 'card' }, fileTitle, source),
      h(
        'div',
        null,
        h('section', { class: 'card' }, h('h4', null, 'Solidity call stack'), callStack),
        h('section', { class: 'card' }, h('h4', null, 'stack (top first)'), stackPane),
        h('section', { class: 'card' }, storageTitle, h('table', null, h('tbody', null), storagePane)),
        h('section', { class: 'card' }, h('h4', null, 'memory'), memoryPane),
        h('section', { class: 'card' }, h('h4', null, 'instructions'), h('table', null, h('thead', null, h('tr', null, ['#', 'pc', 'op', 'gas'].map((c) => h('th', null, c)))), opcodes)),
      ),
    ),
  );
  // Keys as in most debuggers; the listener goes when the page does.
  const keys: Record<string, () => number> = {
    F10: () => model.stepOver(pos, breakpoints),
    F11: () => model.stepInto(pos),
    'Shift+F11': () => model.stepOut(pos, breakpoints),
    F8: () => model.toBreakpoint(pos, breakpoints, true),
    'Shift+F8': () => model.toBreakpoint(pos, breakpoints, false),
    '[': () => pos - 1,
    ']': () => pos + 1,
  };
  const onKey = (e: KeyboardEvent) => {
    if (!root.isConnected) return document.removeEventListener('keydown', onKey);
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    const target = keys[(e.shiftKey && e.key.startsWith('F') ? 'Shift+' : '') + e.key];
    if (!target) return;
    e.preventDefault();
    go(target());
  };
  document.addEventListener('keydown', onKey);
  await render();
}
