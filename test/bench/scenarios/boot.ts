// Boot time (spawn → first successful eth_chainId) and RSS right after boot,
// over several fresh starts of the same node kind.

import { SkipScenario, median, readRssMiB, startNode, type Scenario } from '../harness.js';

const scenario: Scenario = {
  name: 'boot',
  description: 'boot time (spawn → first eth_chainId answer), median of 5 starts; RSS after boot',
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
    return {
      'boot time (median)': { value: median(boots), unit: 'ms' },
      'boot time (min)': { value: Math.min(...boots), unit: 'ms' },
      'RSS after boot': { value: median(rss), unit: 'MiB' },
    };
  },
};

export default scenario;
