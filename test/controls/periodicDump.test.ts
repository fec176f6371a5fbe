/**
 * Periodic state writes (--state-interval) keep what they rendered between writes: the accounts'
 * text and each block's. What they write is still the document anvil_dumpState gives at that
 * moment, through transactions, reverts and edits between the writes.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { createNode, type Node } from '../../src/lib/index.js';
import { tempDir } from '../support/tmp.js';

const who = (i: number) => '0x' + (0x9e0000 + i).toString(16).padStart(40, '0');

describe('periodic state writes', () => {
  let node: Node;
  let file: string;
  const rpc = <T = unknown>(method: string, params: unknown[] = []) => node.provider.request({ method, params }) as Promise<T>;
  before(async () => {
    file = join(tempDir('periodic-'), 'state.json');
    node = await createNode({ silent: true, dumpState: file, stateInterval: 0.05 });
  });
  after(async () => {
    await node.close();
  });

  /** The file once a write has finished after now. */
  async function nextWrite(): Promise<string> {
    const since = statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
    for (;;) {
      await new Promise((r) => setTimeout(r, 20));
      const st = statSync(file, { throwIfNoEntry: false });
      if (st !== undefined && st.mtimeMs > since) {
        // A write in progress renames a finished temporary over the file: what is there is whole.
        await new Promise((r) => setTimeout(r, 120));
        return readFileSync(file, 'utf8');
      }
    }
  }
  const dumped = async () => gunzipSync(Buffer.from((await rpc<string>('anvil_dumpState')).slice(2), 'hex')).toString('utf8');

  test('each write is the document of the state as it is, while blocks, edits and reverts come and go', async () => {
    const [from] = await rpc<string[]>('eth_accounts');
    for (let round = 0; round < 4; round++) {
      const snap = await rpc<string>('evm_snapshot');
      for (let i = 0; i < 5; i++) await rpc('eth_sendTransaction', [{ from, to: who(i + round), value: '0x' + (i + 1).toString(16) }]);
      await rpc('anvil_setBalance', [who(100 + round), '0x42']);
      if (round % 2 === 1) await rpc('evm_revert', [snap]);
      await nextWrite();
      const written = await nextWrite();
      assert.equal(written, await dumped(), `round ${round}`);
    }
    const doc = JSON.parse(await dumped());
    assert.ok(doc.transactions.length >= 10, `${doc.transactions.length} transactions`);
  });
});
