// Resident memory of the node after all preceding scenarios. Keep it last in the list.

import { SkipScenario, readRssMiB, type Scenario } from '../harness.js';

const scenario: Scenario = {
  name: 'rss-end',
  description: 'RSS of the node at the end of the run',
  async run(node) {
    if (node.pid === undefined) throw new SkipScenario('pid unknown');
    return { 'RSS at end': { value: readRssMiB(node.pid), unit: 'MiB' } };
  },
};

export default scenario;
