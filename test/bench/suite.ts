// The workload of a contract developer's test suite, one request in flight at a time (mocha or
// vitest await each call): deploy a token once, take a snapshot, then N "tests", each
//   evm_revert to the fixture, evm_snapshot (what hardhat's loadFixture does),
//   two signed transfers (eth_sendRawTransaction, then eth_getTransactionReceipt),
//   one eth_estimateGas, four balanceOf eth_calls, one eth_getLogs and one eth_getBlockByNumber.
// Every test starts from the same state, so the two transfers are signed once, before anything is
// measured, and sent again in every test. The caller is anything with `call(method, params)`: the
// bench's HTTP client, or an in-process provider.

import { ContractFactory, Interface } from 'ethers';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { chooseFees, devWallet, loadTokenArtifact, recipient, TOKEN_SUPPLY, type Receipt } from './chain.js';
import { RpcClient, median, repoRoot, startBare, startNode, type BenchNode, type Metrics } from './harness.js';

export interface Caller {
  call<T = unknown>(method: string, params?: unknown[]): Promise<T>;
}

/** The methods a suite test calls, in the order of the report. */
export const SUITE_METHODS = [
  'eth_call',
  'eth_estimateGas',
  'eth_sendRawTransaction',
  'eth_getTransactionReceipt',
  'evm_revert',
  'eth_getLogs',
  'eth_getBlockByNumber',
  'evm_snapshot',
] as const;

export interface SuiteRun {
  /** Each test's time, ms. */
  perTest: Float64Array;
  /** Mean time of one call of each method, ms. */
  perMethod: Record<(typeof SUITE_METHODS)[number], number>;
}

export async function runSuite(rpc: Caller, chainId: number, tests: number): Promise<SuiteRun> {
  const art = loadTokenArtifact();
  const iface = new Interface(art.abi);
  const wallet = devWallet();
  const fees = await chooseFees(rpc);
  let nonce = Number(BigInt(await rpc.call<string>('eth_getTransactionCount', [wallet.address, 'pending'])));
  const deploy = await new ContractFactory(art.abi, art.bytecode).getDeployTransaction('Suite', 'SUIT', TOKEN_SUPPLY);
  const deployRaw = await wallet.signTransaction({ type: 2, chainId, nonce: nonce++, gasLimit: 5_000_000n, to: null, data: deploy.data, value: 0n, ...fees });
  const deployed = await receiptOf(rpc, await rpc.call<string>('eth_sendRawTransaction', [deployRaw]));
  if (deployed.status !== '0x1' || !deployed.contractAddress) throw new Error(`Token deployment failed (status ${deployed.status})`);
  const token = deployed.contractAddress;

  const to = [recipient(7_000_001), recipient(7_000_002)];
  const transfers = await Promise.all(
    to.map((r, i) =>
      wallet.signTransaction({ type: 2, chainId, nonce: nonce + i, gasLimit: 60_000n, to: token, value: 0n, data: iface.encodeFunctionData('transfer', [r, 1000n + BigInt(i)]), ...fees }),
    ),
  );
  const estimate = { from: wallet.address, to: token, data: iface.encodeFunctionData('transfer', [to[0], 1n]) };
  const balanceOf = [wallet.address, to[0]!, to[1]!, recipient(7_000_003)].map((a) => ({ to: token, data: iface.encodeFunctionData('balanceOf', [a]) }));
  const transferTopic = iface.getEvent('Transfer')!.topicHash;

  const spent = Object.fromEntries(SUITE_METHODS.map((m) => [m, 0])) as Record<(typeof SUITE_METHODS)[number], number>;
  const calls = Object.fromEntries(SUITE_METHODS.map((m) => [m, 0])) as Record<(typeof SUITE_METHODS)[number], number>;
  const timed = async <T>(m: (typeof SUITE_METHODS)[number], params: unknown[]): Promise<T> => {
    const t = performance.now();
    const out = await rpc.call<T>(m, params);
    spent[m] += performance.now() - t;
    calls[m]++;
    return out;
  };

  let snapshot = await rpc.call<string>('evm_snapshot');
  const perTest = new Float64Array(tests);
  for (let i = 0; i < tests; i++) {
    const t0 = performance.now();
    if (!(await timed<boolean>('evm_revert', [snapshot]))) throw new Error(`evm_revert(${snapshot}) returned false`);
    snapshot = await timed<string>('evm_snapshot', []);
    for (const raw of transfers) {
      const hash = await timed<string>('eth_sendRawTransaction', [raw]);
      let receipt: Receipt | null = null;
      for (let polls = 0; receipt === null; polls++) {
        if (polls > 10_000) throw new Error(`no receipt for ${hash}`);
        receipt = await timed<Receipt | null>('eth_getTransactionReceipt', [hash]);
      }
      if (receipt.status !== '0x1') throw new Error(`test ${i}: a transfer reverted`);
    }
    await timed('eth_estimateGas', [estimate]);
    const balances = [];
    for (const c of balanceOf) balances.push(BigInt(await timed<string>('eth_call', [c, 'latest'])));
    if (balances[1] !== 1000n || balances[2] !== 1001n) throw new Error(`test ${i}: balances ${balances.join(', ')} after the transfers`);
    const logs = await timed<unknown[]>('eth_getLogs', [{ address: token, topics: [transferTopic], fromBlock: 'latest', toBlock: 'latest' }]);
    if (logs.length !== 1) throw new Error(`test ${i}: ${logs.length} Transfer logs in the last block`);
    await timed('eth_getBlockByNumber', ['latest', false]);
    perTest[i] = performance.now() - t0;
  }
  const perMethod = Object.fromEntries(SUITE_METHODS.map((m) => [m, spent[m] / Math.max(1, calls[m])])) as SuiteRun['perMethod'];
  return { perTest, perMethod };
}

async function receiptOf(rpc: Caller, hash: string): Promise<Receipt> {
  for (let polls = 0; polls < 10_000; polls++) {
    const r = await rpc.call<Receipt | null>('eth_getTransactionReceipt', [hash]);
    if (r) return r;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error(`no receipt for ${hash}`);
}

/** The metrics of a run: per test (median and mean), then the mean of each method. */
export function suiteMetrics(run: SuiteRun, median: (xs: ArrayLike<number>) => number): Metrics {
  const out: Metrics = {
    'per test p50': { value: median(run.perTest), unit: 'ms' },
    'per test mean': { value: mean(run.perTest), unit: 'ms' },
  };
  for (const m of SUITE_METHODS) out[m] = { value: run.perMethod[m], unit: 'ms' };
  return out;
}

/**
 * A bare node:http server, no Ethereum, that answers each request with the next of `answers` (the
 * results a node gave to the same client, in order, as JSON texts): it parses each body for its
 * id and writes the envelope, and stays awake between requests by node-rpc's rule, as the awake
 * server of `http-floor` does. What the workload costs on it is what it costs any Node server
 * before the work: Node's HTTP and the client, cold as on a fresh node. An ES module's text.
 */
function replayServer(answersFile: string, awakeModule: string): string {
  return `
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { StayAwake } from ${JSON.stringify(awakeModule)};
const awake = new StayAwake();
const answers = JSON.parse(readFileSync(${JSON.stringify(answersFile)}, 'utf8'));
let next = 0;
http.createServer({ keepAliveTimeout: 5000, noDelay: true }, (req, res) => {
  awake.started();
  res.on('close', awake.ended);
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const body = '{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":' + answers[next++] + '}';
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
}).listen(Number(process.argv[1]), '127.0.0.1', () => process.stdout.write('up\\n'));
`;
}

/** A caller that passes calls on to `rpc` and keeps each result's JSON text, in order. */
function recording(rpc: Caller): { caller: Caller; answers: string[] } {
  const answers: string[] = [];
  return {
    answers,
    caller: {
      async call<T>(method: string, params: unknown[] = []): Promise<T> {
        const out = await rpc.call<T>(method, params);
        answers.push(JSON.stringify(out ?? null));
        return out;
      },
    },
  };
}

/** The workload against a fresh replay server (replayServer) of `answers`. */
async function overReplay(answers: string[], chainId: number, tests: number): Promise<SuiteRun> {
  const dir = mkdtempSync(join(tmpdir(), 'node-rpc-replay-'));
  const file = join(dir, 'answers.json');
  writeFileSync(file, JSON.stringify(answers));
  const awakeModule = pathToFileURL(join(repoRoot(), 'dist', 'src', 'server', 'awake.js')).href;
  const bare = await startBare(['--input-type=module', '-e', replayServer(file, awakeModule)]);
  const rpc = new RpcClient(bare.url);
  try {
    return await runSuite(rpc, chainId, tests);
  } finally {
    rpc.close();
    bare.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The workload over HTTP, on an instance started fresh for it (as a suite's own node would be);
 * a --target is used as it is. Then the same number of tests again on the same node, reported as
 * `per test p50, warm`: a node (and a machine) past its start, as a suite's later tests meet it.
 * The warm run's answers are kept, and the workload is run once more against a bare Node server
 * that replays them (replayServer), started fresh: `per test p50, Node replaying`, the floor of
 * Node's HTTP and the client under the same requests, beside what the node itself takes (left out
 * with `replay: false`). With `long`, a suite of that many tests on another fresh instance: its
 * mean per test, warm-up included (`longRow`), as a large suite sees the node over its whole run.
 */
export async function suiteOverHttp(node: BenchNode, tests: number, opts: { replay?: boolean; long?: number } = {}): Promise<Metrics> {
  const out = await onFreshNode(node, async (rpc, chainId) => {
    const m = suiteMetrics(await runSuite(rpc, chainId, tests), median);
    const warm = recording(rpc);
    m['per test p50, warm'] = { value: median((await runSuite(warm.caller, chainId, tests)).perTest), unit: 'ms' };
    if (opts.replay !== false) {
      m['per test p50, Node replaying'] = { value: median((await overReplay(warm.answers, chainId, tests)).perTest), unit: 'ms' };
    }
    return m;
  });
  const long = opts.long;
  if (long !== undefined) {
    const perTest = await onFreshNode(node, async (rpc, chainId) => (await runSuite(rpc, chainId, long)).perTest);
    out[longRow(long)] = { value: mean(perTest), unit: 'ms' };
  }
  return out;
}

/** How many tests a long run has (`suite`, `suite-in-process`). */
export const longTests = (quick: boolean): number => (quick ? 200 : 1_000);

/** The row of a long run's mean: a whole suite of `tests` tests on a fresh node, its warm-up included. */
export const longRow = (tests: number): string => `per test mean, ${tests.toLocaleString('en-US')} tests`;

export function mean(xs: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < xs.length; i++) sum += xs[i]!;
  return sum / xs.length;
}

/** `work` over HTTP on an instance started fresh for it (a --target is used as it is). */
async function onFreshNode<T>(node: BenchNode, work: (rpc: RpcClient, chainId: number) => Promise<T>): Promise<T> {
  const fresh = node.spec ? await startNode(node.spec) : undefined;
  const rpc = fresh ? new RpcClient(fresh.url) : node.rpc;
  try {
    return await work(rpc, fresh?.chainId ?? node.chainId);
  } finally {
    if (fresh) {
      rpc.close();
      await fresh.stop();
    }
  }
}
