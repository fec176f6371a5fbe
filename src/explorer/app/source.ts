/**
 * A reverted transaction's Solidity stack (the node's sourceTracer): the message, the frames
 * innermost first, and the source around the reverting line. Nodes without the tracer, or without
 * the contracts' artifacts, show nothing here.
 */
import { h, type Context } from './ui.js';

interface Place {
  contract: string | null;
  function: string | null;
  file: string | null;
  line: number | null;
  column: number | null;
}

interface SourceTrace {
  revert?: { message: string; stack: Place[]; snippet: Array<{ line: number; text: string }> };
}

const placeText = (p: Place): string =>
  p.file === null ? `${p.contract ?? '?'} (no source)` : `${p.contract ?? '?'}${p.function ? '.' + p.function : ''}  ${p.file}:${p.line}:${p.column}`;

export async function sourceView(ctx: Context, root: HTMLElement, hash: string): Promise<void> {
  let trace: SourceTrace;
  try {
    trace = await ctx.rpc.call<SourceTrace>('debug_traceTransaction', [hash, { tracer: 'sourceTracer' }]);
  } catch {
    return;
  }
  const r = trace?.revert;
  if (!r) return;
  const target = r.stack[0];
  const width = String(r.snippet[r.snippet.length - 1]?.line ?? 0).length;
  root.append(
    h(
      'section',
      { class: 'card', id: 'source' },
      h('h2', null, 'Solidity stack'),
      h('div', { class: 'revert', id: 'source-message' }, r.message),
      h('ol', { class: 'source-stack', id: 'source-stack' }, r.stack.map((p) => h('li', null, placeText(p)))),
      target?.file ? h('h3', null, target.file) : '',
      h(
        'pre',
        { class: 'snippet', id: 'source-snippet' },
        r.snippet.map((s) => h('span', s.line === target?.line ? { class: 'hit' } : null, `${String(s.line).padStart(width)} | ${s.text}`)),
      ),
    ),
  );
}
