/** `node-rpc dev --fork-url …` as a child process: flags, banner, headers, start-up failure, cache on exit. */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BIN, startCli } from '../support/cli.js';
import { rpcProxy } from '../support/proxy.js';
import { startUpstream, type Upstream } from './helpers.js';


describe('node-rpc dev --fork-url (child process)', () => {
  let up: Upstream;
  let dir: string;

  before(async () => {
    up = await startUpstream();
    dir = mkdtempSync(join(tmpdir(), 'node-rpc-fork-cli-'));
  });
  after(async () => {
    await up?.node.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('fork flags are checked; an unreachable upstream is one clear line and a non-zero exit', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--fork-url', 'ftp://example.com'], /--fork-url.*http:\/\/ or https:\/\//],
      [['--fork-url', up.node.url, '--fork-header', 'no colon'], /--fork-header.*Name: value/],
      [['--fork-url', up.node.url, '--fork-block-number', 'x'], /--fork-block-number/],
      [['--fork-block-number', '3'], /--fork-block-number needs --fork-url/],
      [['--fork-cache', dir], /--fork-cache needs --fork-url/],
    ];
    for (const [args, pattern] of cases) {
      const r = spawnSync(process.execPath, [BIN, 'dev', '--port', '0', ...args], { encoding: 'utf8', timeout: 10_000 });
      assert.notEqual(r.status, 0, args.join(' '));
      assert.match(r.stderr, pattern, args.join(' '));
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
    const closed = http.createServer().listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const child = spawn(process.execPath, [BIN, 'dev', '--port', '0', '--fork-url', `http://127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const [code] = await once(child, 'exit');
    assert.notEqual(code, 0);
    assert.match(err.trim(), new RegExp(`^error: cannot start: fork upstream failed: eth_\\w+ to http://127\\.0\\.0\\.1:${port}: connect ECONNREFUSED`));
    assert.equal(err.trim().split('\n').length, 1);
  });

  test('forks with headers, shows the fork in the banner, keeps the cache on exit', async () => {
    const proxy = await rpcProxy(up.node.url);
    const node = await startCli(['--fork-url', proxy.url, '--fork-block-number', String(up.forkBlock), '--fork-header', 'X-Api-Key: sesame', '--fork-header', 'X-Team: qa', '--fork-cache', dir]);
    try {
      const text = node.output();
      assert.match(text, /Chain ID:\s+984 \(the upstream's\)/);
      // Chain 984's forks are not known: the default, said so.
      assert.match(text, /Hardfork:\s+bpo2 \(the default: chain 984's forks are not known here; --hardfork picks another\)/);
      assert.match(text, new RegExp(`Endpoint:\\s+${proxy.url.replace(/\./g, '\\.')}`));
      assert.match(text, new RegExp(`Block number:\\s+${up.forkBlock}\\b`));
      assert.match(text, /Cache:\s+\S+block-\d+\.jsonl/);
      const post = node.rpc;
      assert.equal(BigInt(await post('eth_blockNumber')), up.forkBlock);
      assert.equal(await post('eth_getBalance', [up.funded[6], 'latest']), '0x1b58');
      assert.ok(proxy.seen.length > 0);
      for (const { headers: h } of proxy.seen) {
        assert.equal(h['x-api-key'], 'sesame');
        assert.equal(h['x-team'], 'qa');
      }
      assert.equal(await post('eth_getStorageAt', [up.storage, '0x0', 'latest']), '0x' + (42).toString(16).padStart(64, '0'));
      assert.equal(await node.stop(), 0);
      assert.ok(existsSync(join(dir, 'chain-984', `block-${up.forkBlock}.jsonl`)));
    } finally {
      await node.stop('SIGKILL');
      await proxy.close();
    }
  });
});
