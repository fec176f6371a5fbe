import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { ADDRS } from '../support/node.js';
import { call, events } from './helpers.js';

const BIN = fileURLToPath(new URL('../../../bin/node-rpc.js', import.meta.url));

describe('node-rpc dev --max-logs / --filter-timeout', () => {
  test('bad values exit non-zero naming the flag', () => {
    for (const [args, pattern] of [
      [['--max-logs', '0'], /--max-logs/],
      [['--max-logs', 'many'], /--max-logs/],
      [['--filter-timeout', '-5'], /--filter-timeout/],
      [['--filter-timeout', '1.5'], /--filter-timeout/],
    ] as Array<[string[], RegExp]>) {
      const r = spawnSync(process.execPath, [BIN, 'dev', ...args], { encoding: 'utf8', timeout: 10_000 });
      assert.notEqual(r.status, 0, args.join(' '));
      assert.match(r.stderr, pattern, args.join(' '));
    }
  });

  test('the flags reach the node: the cap answers -32005, an unpolled filter expires', async () => {
    const child = spawn(process.execPath, [BIN, 'dev', '--port', '0', '--max-logs', '2', '--filter-timeout', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      const deadline = Date.now() + 10_000;
      while (!/Listening on (http:\/\/\S+)/.test(out)) {
        assert.ok(Date.now() < deadline, `no banner: ${out}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      const url = /Listening on (http:\/\/\S+)/.exec(out)![1].replace(/\u001b\[[0-9;]*m/g, '');
      const rpc = async (method: string, params: unknown[] = []) =>
        (await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json()) as any;
      const deploy = await rpc('eth_sendTransaction', [{ from: ADDRS[0], data: events().bytecode }]);
      const addr = (await rpc('eth_getTransactionReceipt', [deploy.result])).result.contractAddress;
      const filter = (await rpc('eth_newBlockFilter')).result;
      await rpc('eth_sendTransaction', [{ from: ADDRS[0], to: addr, data: call.many(3) }]);
      const capped = await rpc('eth_getLogs', [{ fromBlock: '0x0' }]);
      assert.equal(capped.error?.code, -32005);
      assert.match(capped.error.message, /more than 2 logs/);
      assert.equal((await rpc('eth_getFilterChanges', [filter])).result.length, 1, 'alive while polled');
      await new Promise((r) => setTimeout(r, 1300));
      const gone = await rpc('eth_getFilterChanges', [filter]);
      assert.equal(gone.error?.code, -32000);
      assert.equal(gone.error.message, 'filter not found');
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
});
