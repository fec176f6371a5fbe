/**
 * Reports page: the node's coverage per source file (every line, the ones that ran shaded green,
 * the ones that did not red) and its gas report, from node_coverage and node_gasReport. A node
 * started without --coverage / --gas-report says so.
 */
import { h, type Context } from './ui.js';

interface Totals {
  statements: [number, number];
  branches: [number, number];
  functions: [number, number];
  lines: [number, number];
}
interface SourceCoverage {
  path: string;
  lines: Array<{ text: string; hits: number | null }>;
  totals: Totals;
}
interface MethodGas {
  selector: string;
  calls: number;
  min: number;
  max: number;
  avg: number;
  median: number;
}
interface GasReport {
  codeSizeLimit: number;
  contracts: Record<string, { methods: Record<string, MethodGas>; deployments: Array<{ address: string; gas: number; codeSize: number; percentOfLimit: number }> }>;
}

const pct = ([hit, all]: [number, number]) => (all === 0 ? '100 %' : `${Math.floor((hit / all) * 1000) / 10} % (${hit}/${all})`);

function fileCard(f: SourceCoverage): HTMLElement {
  const t = f.totals;
  const body = h(
    'div',
    { class: 'cov-source mono' },
    f.lines.map((l, i) =>
      h(
        'div',
        { class: `cov-line${l.hits === null ? '' : l.hits > 0 ? ' hit' : ' missed'}`, 'data-line': String(i + 1) },
        h('span', { class: 'cov-no' }, String(i + 1)),
        h('span', { class: 'cov-hits' }, l.hits === null ? '' : `${l.hits}×`),
        h('span', { class: 'cov-text' }, l.text),
      ),
    ),
  );
  return h(
    'section',
    { class: 'card cov-file', 'data-path': f.path },
    h('h2', null, f.path),
    h('p', { class: 'small dim' }, `statements ${pct(t.statements)} · branches ${pct(t.branches)} · functions ${pct(t.functions)} · lines ${pct(t.lines)}`),
    body,
  );
}

function gasCards(r: GasReport): HTMLElement[] {
  const rows: HTMLElement[] = [];
  const deploys: HTMLElement[] = [];
  for (const [name, c] of Object.entries(r.contracts)) {
    for (const [fn, m] of Object.entries(c.methods)) rows.push(h('tr', null, [name, fn, m.calls, m.min, m.max, m.avg, m.median].map((v) => h('td', null, String(v)))));
    for (const d of c.deployments) deploys.push(h('tr', null, [name, d.address, d.gas, d.codeSize, `${d.percentOfLimit} %`].map((v) => h('td', null, String(v)))));
  }
  const head = (cols: string[]) => h('thead', null, h('tr', null, cols.map((c) => h('th', null, c))));
  return [
    h('section', { class: 'card' }, h('h2', null, 'Gas per function (mined transactions)'), h('table', { id: 'gas-methods' }, head(['contract', 'function', 'calls', 'min', 'max', 'avg', 'median']), h('tbody', null, rows))),
    h('section', { class: 'card' }, h('h2', null, `Deployments (runtime code against ${r.codeSizeLimit} bytes)`), h('table', { id: 'gas-deployments' }, head(['contract', 'address', 'gas', 'size (bytes)', 'of the limit']), h('tbody', null, deploys))),
  ];
}

export async function reportsPage(ctx: Context, root: HTMLElement): Promise<void> {
  root.append(h('h1', null, 'Coverage and gas'));
  const [coverage, gas] = await Promise.all([ctx.rpc.call<SourceCoverage[]>('node_coverage', ['source']).catch((err: Error) => err), ctx.rpc.call<GasReport>('node_gasReport').catch((err: Error) => err)]);
  if (coverage instanceof Error) root.append(h('p', { class: 'dim', id: 'coverage-off' }, `No coverage: ${coverage.message.includes('is off') || coverage.message.includes('does not exist') ? 'start the node with --coverage <dir>' : coverage.message}`));
  else if (coverage.length === 0) root.append(h('p', { class: 'dim', id: 'coverage-off' }, 'No coverage: no artifact with a source map and an AST'));
  else root.append(...coverage.map(fileCard));
  if (gas instanceof Error) root.append(h('p', { class: 'dim', id: 'gas-off' }, `No gas report: ${gas.message.includes('is off') || gas.message.includes('does not exist') ? 'start the node with --gas-report' : gas.message}`));
  else root.append(...gasCards(gas));
}
