// The workload of a contract developer's test suite, one request in flight at a time (mocha or
// vitest await each call): deploy a token once, take a snapshot, then N "tests", each
//   evm_revert to the fixture, evm_snapshot (what hardhat's loadFixture does),
//   two signed transfers (eth_sendRawTransaction, then eth_getTransactionReceipt),
//   one eth_estimateGas, four balanceOf eth_calls, one eth_getLogs and one eth_getBlockByNumber.
// Every test starts from the same state, so the two transfers are signed once, before anything is
// measured, and sent again in every test. The caller is anything with `call(method, params)`: the
// bench's HTTP client, or an in-process provider.

import { ContractFactory, Interface } from 'ethers';
import { performance } from 'node:perf_hooks';
import { chooseFees, devWallet, loadTokenArtifact, recipient, TOKEN_SUPPLY, type Receipt } from './chain.js';
import { RpcClient, median, startNode, type BenchNode, type Metrics } from './harness.js';

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
  let sum = 0;
  for (const v of run.perTest) sum += v;
  const out: Metrics = {
    'per test p50': { value: median(run.perTest), unit: 'ms' },
    'per test mean': { value: sum / run.perTest.length, unit: 'ms' },
  };
  for (const m of SUITE_METHODS) out[m] = { value: run.perMethod[m], unit: 'ms' };
  return out;
}

/**
 * The workload over HTTP, on an instance started fresh for it (as a suite's own node would be);
 * a --target is used as it is. Then the same number of tests again on the same node, reported as
 * `per test p50, warm`: a node (and a machine) past its start, as a suite's later tests meet it.
 */
export async function suiteOverHttp(node: BenchNode, tests: number): Promise<Metrics> {
  const fresh = node.spec ? await startNode(node.spec) : undefined;
  const rpc = fresh ? new RpcClient(fresh.url) : node.rpc;
  try {
    const chainId = fresh?.chainId ?? node.chainId;
    const out = suiteMetrics(await runSuite(rpc, chainId, tests), median);
    out['per test p50, warm'] = { value: median((await runSuite(rpc, chainId, tests)).perTest), unit: 'ms' };
    return out;
  } finally {
    if (fresh) {
      rpc.close();
      await fresh.stop();
    }
  }
}
