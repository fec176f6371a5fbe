import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { Interface } from 'ethers';
import { ADDRS, artifact } from '../support/node.js';

const BIN = fileURLToPath(new URL('../../../bin/node-rpc.js', import.meta.url));

describe('node-rpc dev prints console.log output under its transaction', () => {
  test('lines appear between the transaction line and the block line', async () => {
    const child = spawn(process.execPath, [BIN, 'dev', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    try {
      const deadline = Date.now() + 10_000;
      while (!/Listening on (http:\/\/\S+)/.test(out)) {
        assert.ok(Date.now() < deadline, `no banner: ${out}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      const url = /Listening on (http:\/\/\S+)/.exec(out)![1].replace(/\u001b\[[0-9;]*m/g, '');
      const rpc = async (method: string, params: unknown[]) =>
        ((await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json()) as { result: any }).result;
      const deploy = await rpc('eth_sendTransaction', [{ from: ADDRS[0], data: artifact('ConsoleUser').bytecode }]);
      const user = (await rpc('eth_getTransactionReceipt', [deploy])).contractAddress;
      const hash = await rpc('eth_sendTransaction', [{ from: ADDRS[1], to: user, data: new Interface(artifact('ConsoleUser').abi).encodeFunctionData('hello', [42]) }]);
      const until = Date.now() + 5000;
      while (!out.includes('two strings second')) {
        assert.ok(Date.now() < until, `no console output: ${out}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      await new Promise((r) => setTimeout(r, 50));
      const lines = out.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
      const at = lines.findIndex((l) => l.includes(`tx ${hash}`));
      assert.ok(at >= 0, 'transaction line');
      assert.deepEqual(lines.slice(at + 1, at + 6), ['      console.log:', '        hello 42', `        ${ADDRS[1]}`, '        true', '        two strings second']);
      assert.match(lines[at + 6], /^ {4}block #2 /);
      const deployAt = lines.findIndex((l) => l.includes(`tx ${deploy}`));
      assert.match(lines[deployAt + 1], /^ {4}block #1 /, 'nothing printed for a transaction that logs nothing');
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
});
