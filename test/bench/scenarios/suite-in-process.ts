// The suite's workload (../suite.ts) through createNode's provider in the bench process: no HTTP,
// no JSON where the provider skips it, as a test file that creates its own chain runs. node-rpc's
// column is the library as shipped (dist/index.js) on a chain created here; anvil's (and a
// --target's) is the same workload over HTTP on a fresh instance, as in `suite`. Also reported:
// how long createNode takes, the first time in this process and once warm, and the tests again on a
// second chain (node-rpc) or on the same node (anvil), warm. Last, a whole suite of 1,000 tests:
// node-rpc's in a process started for it (a test runner's fresh process, creating its chain), the
// others' over HTTP on a fresh instance; its mean per test, warm-up included.

import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { CHAIN_ID, median, repoRoot, type Metrics, type Scenario } from '../harness.js';
import { longRow, longTests, runSuite, suiteMetrics, suiteOverHttp, type Caller } from '../suite.js';
import type { Node, NodeOptions } from '../../../src/lib/types.js';

type CreateNode = (options?: NodeOptions) => Promise<Node>;

const scenario: Scenario = {
  name: 'suite-in-process',
  description: "suite's tests through createNode's provider in this process (node-rpc) beside the same over HTTP (anvil); createNode's first and warm times",
  async run(node) {
    const tests = node.options.quick ? 50 : 200;
    const long = longTests(node.options.quick);
    if (node.label !== 'node-rpc') return suiteOverHttp(node, tests, { replay: false, long });
    let t = performance.now();
    const { createNode } = (await import(pathToFileURL(join(repoRoot(), 'dist', 'index.js')).href)) as { createNode: CreateNode };
    const importMs = performance.now() - t;
    t = performance.now();
    const first = await createNode();
    const firstMs = performance.now() - t;
    await first.close();
    const warm: number[] = [];
    let chain: Node | undefined;
    for (let i = 0; i < 5; i++) {
      t = performance.now();
      const n = await createNode();
      warm.push(performance.now() - t);
      if (i < 4) await n.close();
      else chain = n;
    }
    const caller: Caller = { call: <T>(method: string, params: unknown[] = []) => chain!.provider.request({ method, params }) as Promise<T> };
    try {
      const out: Metrics = suiteMetrics(await runSuite(caller, CHAIN_ID, tests), median);
      // A second chain in the same process, as a runner's next test file gets it: the code is warm.
      const second = await createNode();
      try {
        const call = <T>(method: string, params: unknown[] = []) => second.provider.request({ method, params }) as Promise<T>;
        out['per test p50, warm'] = { value: median((await runSuite({ call }, CHAIN_ID, tests)).perTest), unit: 'ms' };
      } finally {
        await second.close();
      }
      out['import dist/index.js'] = { value: importMs, unit: 'ms' };
      out['createNode (first in process)'] = { value: firstMs, unit: 'ms' };
      out['createNode (second)'] = { value: warm[0]!, unit: 'ms' };
      out['createNode (warm, median of 5)'] = { value: median(warm), unit: 'ms' };
      out[longRow(long)] = { value: await longInFreshProcess(long), unit: 'ms' };
      return out;
    } finally {
      await chain!.close();
    }
  },
};

/** A suite of `tests` tests through createNode's provider in a Node process started for it: its mean per test, ms. */
async function longInFreshProcess(tests: number): Promise<number> {
  const url = (path: string) => JSON.stringify(pathToFileURL(join(repoRoot(), 'dist', ...path.split('/'))).href);
  const script = `
import { createNode } from ${url('index.js')};
import { mean, runSuite } from ${url('test/bench/suite.js')};
const node = await createNode();
const run = await runSuite({ call: (method, params = []) => node.provider.request({ method, params }) }, ${CHAIN_ID}, ${tests});
await node.close();
process.stdout.write(String(mean(run.perTest)));
`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { maxBuffer: 1 << 20 });
  return Number(stdout);
}

export default scenario;
