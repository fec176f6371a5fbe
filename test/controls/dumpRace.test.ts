/**
 * A state dump reads the accounts at the root it fixed, outside the node's lock, so a snapshot
 * rewound meanwhile can take that root's trie nodes from the store. The dump must then not write
 * what it could still read: it is made again at the state as it is now. Either way the document is
 * one whole state, never a part of one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { createNode, type Node } from '../../src/lib/index.js';

const COUNT = 3000;
const who = (i: number) => '0x' + (0x6d0000 + i).toString(16).padStart(40, '0');
const accountsOf = (blob: string): Record<string, { balance: string }> => JSON.parse(gunzipSync(Buffer.from(blob.slice(2), 'hex')).toString('utf8')).accounts;

describe('a state dump while a snapshot is rewound', () => {
  let node: Node;
  const rpc = <T = unknown>(method: string, params: unknown[] = []) => node.provider.request({ method, params }) as Promise<T>;
  before(async () => {
    node = await createNode({ silent: true });
  });
  after(async () => {
    await node.close();
  });

  test('gives the state before the rewind or after it, whole', async () => {
    for (let i = 0; i < COUNT; i++) await rpc('anvil_setBalance', [who(i), '0x1']);
    const total = Object.keys(accountsOf(await rpc<string>('anvil_dumpState'))).length;
    // Rewinds after different parts of the walk (it takes some tens of milliseconds here).
    const delays = [0, 2, 4, 8, 16, 32, 64];
    for (let round = 0; round < delays.length; round++) {
      const snap = await rpc<string>('evm_snapshot');
      // Every account changed: the trie nodes of the state this makes exist only since the snapshot.
      const changed = '0x' + (round + 2).toString(16);
      for (let i = 0; i < COUNT; i++) await rpc('anvil_setBalance', [who(i), changed]);
      const dump = rpc<string>('anvil_dumpState');
      // The rewind lands while the dump walks the accounts (it lets other requests in as it goes).
      await new Promise((r) => setTimeout(r, delays[round]));
      assert.equal(await rpc('evm_revert', [snap]), true);
      const accounts = accountsOf(await dump);
      assert.equal(Object.keys(accounts).length, total, `round ${round}: every account is in the document`);
      const balances = new Set(Array.from({ length: COUNT }, (_, i) => accounts[who(i)].balance));
      assert.equal(balances.size, 1, `round ${round}: one state, not parts of two (${[...balances].join(', ')})`);
      assert.ok(balances.has('0x1') || balances.has(changed));
    }
  });
});
