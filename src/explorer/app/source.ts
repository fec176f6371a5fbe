/**
 * A reverted transaction's Solidity stack (the node's sourceTracer): the message, the frames
 * innermost first, and the source around the reverting line; the same for each failure a caller
 * caught (try/catch). Nodes without the tracer, or without the contracts' artifacts, show nothing
 * here.
 */
import { h, type Context } from './ui.js';

interface Place {
  contract: string | null;
  function: string | null;
  file: string | null;
  line: number | null;
  column: number | null;
}

interface Failure {
  message: string;
  stack: Place[];
  snippet: Array<{ line: number; text: string }>;
}

interface SourceTrace {
  revert?: Failure;
  caught?: Failure;
  calls?: SourceTrace[];
}

function caughtFailures(n: SourceTrace, out: Failure[] = []): Failure[] {
  if (n.caught) out.push(n.caught);
  for (const c of n.calls ?? []) caughtFailures(c, out);
  return out;
}

/** A failure's message, stack and snippet; `ids` names the parts for the revert's own card. */
function failureParts(r: Failure, ids: boolean): HTMLElement[] {
  const target = r.stack[0];
  const width = String(r.snippet[r.snippet.length - 1]?.line ?? 0).length;
  return [
    h('div', { class: 'revert', id: ids ? 'source-message' : undefined }, r.message),
    h('ol', { class: 'source-stack', id: ids ? 'source-stack' : undefined }, r.stack.map((p) => h('li', null, placeText(p)))),
    ...(target?.file ? [h('h3', null, target.file)] : []),
    h(
      'pre',
      { class: 'snippet', id: ids ? 'source-snippet' : undefined },
      r.snippet.map((s) => h('span', s.line === target?.line ? { class: 'hit' } : null, `${String(s.line).padStart(width)} | ${s.text}`)),
    ),
  ];
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
  const caught = trace ? caughtFailures(trace) : [];
  if (caught.length > 0) {
    root.append(h('section', { class: 'card', id: 'caught' }, h('h2', null, `Caught failures (${caught.length})`), caught.map((c) => h('div', { class: 'caught-failure' }, failureParts(c, false)))));
  }
  const r = trace?.revert;
  if (!r) return;
  root.append(h('section', { class: 'card', id: 'source' }, h('h2', null, 'Solidity stack'), failureParts(r, true)));
}
