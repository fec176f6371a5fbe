import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Interface } from 'ethers';
import { startCli } from '../support/cli.js';
import { ADDRS, artifact } from '../support/node.js';

describe('node-rpc dev prints console.log output under its transaction', () => {
  test('lines appear between the transaction line and the block line', async () => {
    const node = await startCli([]);
    const rpc = node.rpc;
    try {
      const deploy = await rpc('eth_sendTransaction', [{ from: ADDRS[0], data: artifact('ConsoleUser').bytecode }]);
      const user = (await rpc('eth_getTransactionReceipt', [deploy])).contractAddress;
      const hash = await rpc('eth_sendTransaction', [{ from: ADDRS[1], to: user, data: new Interface(artifact('ConsoleUser').abi).encodeFunctionData('hello', [42]) }]);
      const until = Date.now() + 5000;
      while (!node.output().includes('two strings second')) {
        assert.ok(Date.now() < until, `no console output: ${node.output()}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      await new Promise((r) => setTimeout(r, 50));
      const lines = node.output().split('\n');
      const at = lines.findIndex((l) => l.includes(`tx ${hash}`));
      assert.ok(at >= 0, 'transaction line');
      assert.deepEqual(lines.slice(at + 1, at + 6), ['      console.log:', '        hello 42', `        ${ADDRS[1]}`, '        true', '        two strings second']);
      assert.match(lines[at + 6], /^ {4}block #2 /);
      const deployAt = lines.findIndex((l) => l.includes(`tx ${deploy}`));
      assert.match(lines[deployAt + 1], /^ {4}block #1 /, 'nothing printed for a transaction that logs nothing');
    } finally {
      await node.stop();
    }
  });
});
