// Boot time (spawn → first successful eth_chainId) and RSS right after boot, over several fresh
// starts of the same node kind; then the RSS of one more start after it has idled for IDLE_MS (a
// node started and left waiting for its suite). V8 gives back part of a Node process's start-up
// heap (its young generation grown while the bundle loads) once the process has been quiet for a
// while, about 8 s after its start here; anvil's figure does not move.

import { SkipScenario, median, readRssMiB, sleep, startNode, type Scenario } from '../harness.js';

/** How long the last start idles before its RSS is read. */
const IDLE_MS = 10_000;

const scenario: Scenario = {
  name: 'boot',
  description: 'boot time (spawn → first eth_chainId answer), median of 5 starts; RSS after boot, and after 10 s idle',
  async run(node) {
    if (!node.spec) throw new SkipScenario('node not started by the harness');
    const starts = node.options.quick ? 3 : 5;
    const boots: number[] = [];
    const rss: number[] = [];
    for (let i = 0; i < starts; i++) {
      const n = await startNode(node.spec);
      try {
        boots.push(n.bootMs);
        rss.push(readRssMiB(n.pid));
      } finally {
        await n.stop();
      }
    }
    const idle = await startNode(node.spec);
    let idleRss: number;
    try {
      await sleep(node.options.quick ? 1_000 : IDLE_MS);
      idleRss = readRssMiB(idle.pid);
    } finally {
      await idle.stop();
    }
    return {
      'boot time (median)': { value: median(boots), unit: 'ms' },
      'boot time (min)': { value: Math.min(...boots), unit: 'ms' },
      'RSS after boot': { value: median(rss), unit: 'MiB' },
      [node.options.quick ? 'RSS after 1 s idle' : 'RSS after 10 s idle']: { value: idleRss, unit: 'MiB' },
    };
  },
};

export default scenario;
