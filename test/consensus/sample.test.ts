/**
 * The consensus gate's quick sample in `npm test`: every 40th Cancun state test case of
 * ethereum/tests (the slow files of slow.ts left out), untraced, on the node's own engine. `npm run test:consensus` runs them all,
 * untraced and traced.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runGate } from './run.js';

test('a deterministic sample of the Ethereum state tests passes on the node engine', async () => {
  const { passed, failed } = await runGate({ sample: 40, traced: [false], workers: 2, skipSlow: true });
  assert.ok(passed > 380, `only ${passed} cases ran`);
  assert.deepEqual(failed.map((f) => `${f.id}: ${f.reason}`), []);
});
