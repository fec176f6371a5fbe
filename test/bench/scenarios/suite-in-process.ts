// The suite's workload (../suite.ts) through createNode's provider in the bench process: no HTTP,
// no JSON where the provider skips it, as a test file that creates its own chain runs. node-rpc's
// column is the library as shipped (dist/index.js) on a chain created here; anvil's (and a
// --target's) is the same workload over HTTP on a fresh instance, as in `suite`. Also reported:
// how long createNode takes, the first time in this process and once warm, and the tests again on a
// second chain (node-rpc) or on the same node (anvil), warm.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHAIN_ID, median, repoRoot, type Metrics, type Scenario } from '../harness.js';
import { runSuite, suiteMetrics, suiteOverHttp, type Caller } from '../suite.js';
import type { Node, NodeOptions } from '../../../src/lib/types.js';

type CreateNode = (options?: NodeOptions) => Promise<Node>;

const scenario: Scenario = {
  name: 'suite-in-process',
  description: "suite's tests through createNode's provider in this process (node-rpc) beside the same over HTTP (anvil); createNode's first and warm times",
  async run(node) {
    const tests = node.options.quick ? 50 : 200;
    if (node.label !== 'node-rpc') return suiteOverHttp(node, tests, { replay: false });
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
      return out;
    } finally {
      await chain!.close();
    }
  },
};

export default scenario;
