/**
 * Traced = untraced (test/consensus/fuzz.ts) with a fixed seed: generated programs give the same
 * gas, return data, logs, errors and state roots whether or not a step listener is attached.
 * `npm run test:consensus` runs a larger seeded set.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { differential, program, Rng } from './fuzz.js';

test('generated programs run identically with and without a step listener (seed 1, 800 programs)', async () => {
  const { mismatch, transactions } = await differential(1, 800);
  assert.equal(mismatch, undefined, `first mismatch: ${JSON.stringify(mismatch, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
  assert.ok(transactions > 2500, `${transactions} transactions`);
});

test('the generator is deterministic, and a difference between the paths is caught', async () => {
  assert.deepEqual(program(new Rng(7), 0), program(new Rng(7), 0));
  assert.notDeepEqual(program(new Rng(7), 0), program(new Rng(8), 0));
  // A listener that writes one storage slot on the traced side: the state roots part.
  const { mismatch } = await differential(1, 200, { tamper: true });
  assert.equal(mismatch?.field, 'root');
});
