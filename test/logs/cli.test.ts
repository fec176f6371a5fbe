import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { BIN, startCli } from '../support/cli.js';
import { ADDRS } from '../support/node.js';
import { call, events } from './helpers.js';

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
    const node = await startCli(['--max-logs', '2', '--filter-timeout', '1']);
    const rpc = node.send;
    try {
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
      await node.stop();
    }
  });
});
