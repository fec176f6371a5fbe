// Benchmark entry point: `npm run bench` (or `node dist/test/bench/run.js [flags]`).
//
// Starts node-rpc and anvil (each a child process on a free port), runs every
// selected scenario on each node — alternating which node goes first from one
// scenario to the next, so slow drift of the machine affects both — and prints
// a side-by-side table. Progress goes to stderr, results to stdout.
//
// To add a scenario: write test/bench/scenarios/<name>.ts with a default export
// `{ name, description, run(node) }` (see harness.ts: Scenario) and add it to
// SCENARIOS below, before rss-end.

import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import {
  RpcClient,
  SkipScenario,
  anvilBinary,
  anvilSpec,
  anvilVersion,
  nodeRpcSpec,
  startNode,
  waitIdle,
  warmClient,
  type BenchNode,
  type BenchOptions,
  type NodeSpec,
  type RunningNode,
  type Scenario,
} from './harness.js';
import { environmentLine, markdownTable, plainTable, type ScenarioResults } from './report.js';

import boot from './scenarios/boot.js';
import transfers from './scenarios/transfers.js';
import transfersSustained from './scenarios/transfers-sustained.js';
import ethCall from './scenarios/eth-call.js';
import ethCallVaried from './scenarios/eth-call-varied.js';
import heavyCall from './scenarios/heavy-call.js';
import blockNumber from './scenarios/block-number.js';
import getBalance from './scenarios/get-balance.js';
import batch from './scenarios/batch.js';
import tracing from './scenarios/tracing.js';
import jsTracer from './scenarios/js-tracer.js';
import mining from './scenarios/mining.js';
import snapshots from './scenarios/snapshots.js';
import fork from './scenarios/fork.js';
import logs from './scenarios/logs.js';
import fanout from './scenarios/fanout.js';
import suite from './scenarios/suite.js';
import suiteInProcess from './scenarios/suite-in-process.js';
import httpFloor from './scenarios/http-floor.js';
import stateWrites from './scenarios/state-writes.js';
import coverage from './scenarios/coverage.js';
import rssEnd from './scenarios/rss-end.js';

/**
 * Run order. rss-end stays last: it reports memory after everything else. Which node goes first
 * alternates by position, and the shared node's memory at the end depends on which one idles
 * through anvil's ten-minute `logs`, so a new scenario goes just before rss-end: transfers-sustained
 * and suite run on instances of their own, and with http-floor they leave the order of the others
 * as it was (they are two, so the node that goes first in rss-end is unchanged). suite-in-process
 * (node-rpc's side in the bench process, anvil's on an instance of its own) makes them three: the
 * node that goes first in rss-end is now the other one. state-writes (instances of its own) makes them
 * four: the node that goes first in rss-end is the one it was before suite-in-process. coverage
 * (two node-rpc instances of its own; anvil skips it) makes them five: the other one again.
 */
export const SCENARIOS: Scenario[] = [boot, transfers, ethCall, ethCallVaried, heavyCall, blockNumber, getBalance, batch, tracing, jsTracer, mining, snapshots, fork, logs, fanout, transfersSustained, suite, suiteInProcess, httpFloor, stateWrites, coverage, rssEnd];

const KINDS = ['node-rpc', 'anvil'] as const;
type Kind = (typeof KINDS)[number];

function usage(): string {
  const names = SCENARIOS.map((s) => `  ${s.name.padEnd(14)} ${s.description}`).join('\n');
  return `usage: node dist/test/bench/run.js [flags]

  --only node-rpc|anvil   bench only this node (repeatable or comma-separated)
  --target URL            bench an already running node instead (JSON-RPC over HTTP)
  --label NAME            column label for --target (default "target")
  --scenario NAME         run only this scenario (repeatable or comma-separated)
  --quick                 shorter durations / fewer iterations (smoke run)
  --markdown              print a Markdown table for BENCHMARKS.md
  --help                  this text

scenarios:
${names}
`;
}

const log = (msg: string) => process.stderr.write(msg + '\n');

interface Live {
  node: BenchNode;
  running?: RunningNode;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string', multiple: true },
      target: { type: 'string' },
      label: { type: 'string' },
      scenario: { type: 'string', multiple: true },
      quick: { type: 'boolean', default: false },
      markdown: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(usage());
    return 0;
  }
  const split = (xs: string[] | undefined) => (xs ?? []).flatMap((x) => x.split(',')).map((x) => x.trim()).filter(Boolean);

  const only = split(values.only);
  for (const o of only) if (!KINDS.includes(o as Kind)) throw new Error(`--only: unknown node "${o}" (node-rpc|anvil)`);
  let kinds: Kind[];
  if (only.length > 0) kinds = KINDS.filter((k) => only.includes(k));
  else if (values.target) kinds = [];
  else {
    kinds = ['node-rpc'];
    if (anvilBinary()) kinds.push('anvil');
    else log('anvil is not installed: benching node-rpc only');
  }

  const wanted = split(values.scenario);
  for (const w of wanted) {
    if (!SCENARIOS.some((s) => s.name === w)) throw new Error(`--scenario: unknown "${w}"\n\n${usage()}`);
  }
  const scenarios = wanted.length ? SCENARIOS.filter((s) => wanted.includes(s.name)) : SCENARIOS;
  const options: BenchOptions = { quick: values.quick };

  // Start the nodes.
  const live: Live[] = [];
  const labels: string[] = [];
  const startFailures = new Map<string, string>();
  const stopAll = async () => {
    for (const l of live) {
      l.node.rpc.close();
      await l.running?.stop();
    }
  };
  process.once('SIGINT', () => {
    void stopAll().finally(() => process.exit(130));
  });

  for (const kind of kinds) {
    labels.push(kind);
    try {
      const spec: NodeSpec = kind === 'anvil' ? anvilSpec() : nodeRpcSpec();
      log(`starting ${kind} …`);
      const running = await startNode(spec);
      log(`  ${kind} up on ${running.url} (pid ${running.pid}, ${running.bootMs.toFixed(0)} ms)`);
      live.push({
        running,
        node: {
          label: kind,
          url: running.url,
          chainId: running.chainId,
          pid: running.pid,
          spec,
          rpc: new RpcClient(running.url),
          options,
          cache: new Map(),
        },
      });
    } catch (e) {
      const msg = (e as Error).message;
      log(`  ${kind} failed to start: ${msg}`);
      startFailures.set(kind, msg.split('\n')[0]!);
    }
  }
  if (values.target) {
    const label = values.label ?? 'target';
    labels.push(label);
    const rpc = new RpcClient(values.target);
    try {
      const chainId = Number(BigInt(await rpc.call<string>('eth_chainId')));
      log(`target ${values.target} answers, chain id ${chainId}`);
      live.push({ node: { label, url: values.target, chainId, rpc, options, cache: new Map() } });
    } catch (e) {
      rpc.close();
      log(`  target ${values.target} does not answer: ${(e as Error).message}`);
      startFailures.set(label, (e as Error).message);
    }
  }
  if (labels.length === 0) throw new Error('nothing to bench');

  // The client is warmed first, so no node pays for its JIT warm-up by going first.
  await warmClient();

  // Run the scenarios, alternating which node goes first.
  const results: ScenarioResults[] = [];
  let failures = startFailures.size;
  const pids = live.flatMap((l) => (l.running ? [l.running.pid] : []));
  for (const [i, scenario] of scenarios.entries()) {
    const byNode: ScenarioResults['byNode'] = new Map();
    for (const [label, msg] of startFailures) byNode.set(label, { kind: 'failed', error: msg });
    const order = i % 2 === 0 ? live : [...live].reverse();
    for (const { node } of order) {
      // Every node started here must be idle first: one still working on an earlier request (one
      // its client timed out on, say) would take CPU from this measurement, whichever node it is.
      const waited = await waitIdle(pids);
      if (waited < 0) log(`  (a node was still busy after 120 s; measuring anyway)`);
      else if (waited > 1000) log(`  (waited ${(waited / 1000).toFixed(1)} s for the nodes to go idle)`);
      const t0 = performance.now();
      process.stderr.write(`[${i + 1}/${scenarios.length}] ${scenario.name} · ${node.label} … `);
      try {
        const metrics = await scenario.run(node);
        byNode.set(node.label, { kind: 'ok', metrics });
        log(`${((performance.now() - t0) / 1000).toFixed(1)} s`);
      } catch (e) {
        if (e instanceof SkipScenario) {
          byNode.set(node.label, { kind: 'skipped', reason: e.message });
          log(`skipped (${e.message})`);
        } else {
          failures++;
          const msg = (e as Error).message ?? String(e);
          byNode.set(node.label, { kind: 'failed', error: msg });
          log(`FAILED: ${msg}`);
        }
      }
      // Let sockets close and the node settle before the next measurement.
      await new Promise((r) => setTimeout(r, 200));
    }
    results.push({ scenario: scenario.name, byNode });
  }

  await stopAll();

  if (values.markdown) {
    process.stdout.write(environmentLine(anvilVersion()) + '\n\n' + markdownTable(results, labels) + '\n');
  } else {
    process.stdout.write('\n' + plainTable(results, labels) + '\n');
  }
  if (failures > 0) {
    log(`\n${failures} failure(s):`);
    for (const label of startFailures.keys()) log(`  ${label}: did not start`);
    for (const r of results) {
      for (const [label, o] of r.byNode) {
        if (o.kind === 'failed' && !startFailures.has(label)) log(`  ${r.scenario} · ${label}: ${o.error}`);
      }
    }
    return 1;
  }
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: Error) => {
    log(e.message);
    process.exitCode = 2;
  },
);
