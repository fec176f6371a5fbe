import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestNode, type TestNode } from '../support/node.js';
import { waitFor } from './helpers.js';

const TIMEOUT_MS = 250;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('filter expiry (timeout shortened to 250 ms)', () => {
  let n: TestNode;

  before(async () => {
    n = await startTestNode({ filterTimeoutMs: TIMEOUT_MS });
  });
  after(() => n.close());

  test('a filter polled more often than the timeout lives on', async () => {
    const id = await n.rpc('eth_newBlockFilter');
    for (let i = 0; i < 6; i++) {
      await sleep(TIMEOUT_MS / 2);
      assert.deepEqual(await n.rpc('eth_getFilterChanges', [id]), [], `poll ${i}`);
    }
    await n.rpc('eth_uninstallFilter', [id]);
  });

  test('an unpolled filter expires: `filter not found`, and the registry lets go of it', async () => {
    const base = n.node.filters.size;
    const ids = [await n.rpc('eth_newBlockFilter'), await n.rpc('eth_newPendingTransactionFilter'), await n.rpc('eth_newFilter', [{}])];
    const untouched = await n.rpc('eth_newBlockFilter');
    assert.equal(n.node.filters.size, base + 4);
    await sleep(TIMEOUT_MS + 50);
    const r = await n.raw('eth_getFilterChanges', [ids[0]]);
    assert.equal(r.error?.code, -32000);
    assert.equal(r.error?.message, 'filter not found');
    assert.equal((await n.raw('eth_getFilterLogs', [ids[2]])).error?.message, 'filter not found');
    assert.equal(await n.rpc('eth_uninstallFilter', [ids[1]]), false, 'expired: nothing to uninstall');
    // The one never touched again is swept without a lookup.
    await waitFor(() => n.node.filters.size === base, TIMEOUT_MS * 4, 'sweep');
    assert.equal((await n.raw('eth_getFilterChanges', [untouched])).error?.message, 'filter not found');
  });
});
