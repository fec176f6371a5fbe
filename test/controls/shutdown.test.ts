/**
 * Nothing acknowledged is lost: SIGTERM under load from 20 senders, a restart from the state file,
 * and every transaction a client was told about is there (receipts, contiguous nonces; pooled ones
 * with --block-time). Bad state paths are refused at start; SIGKILL during periodic writes never
 * leaves a broken file or stray temporaries.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startCli, type CliNode } from '../support/cli.js';

const SENDERS = 20;

/** Each dev account sends transfers until the node stops answering; returns what was acknowledged. */
async function load(node: CliNode, accounts: string[], onFirst: () => void): Promise<Map<string, string[]>> {
  const acked = new Map<string, string[]>();
  let first = true;
  await Promise.all(
    accounts.map(async (from) => {
      const mine: string[] = [];
      acked.set(from, mine);
      for (;;) {
        let r;
        try {
          r = await node.send('eth_sendTransaction', [{ from, to: accounts[0], value: '0x1' }]);
        } catch {
          return; // connection refused or reset: the node is gone
        }
        if (r.error) return; // "node is shutting down"
        mine.push(r.result as string);
        if (first) {
          first = false;
          onFirst();
        }
      }
    }),
  );
  return acked;
}

describe('stopping and restarting', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'node-rpc-shutdown-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const mode of ['automine', 'block-time'] as const) {
    test(`SIGTERM under load from ${SENDERS} senders loses nothing acknowledged (${mode})`, async () => {
      const file = join(dir, `${mode}.json`);
      const args = ['--accounts', String(SENDERS), '--state', file, ...(mode === 'block-time' ? ['--block-time', '0.3'] : [])];
      const node = await startCli(args);
      const accounts: string[] = await node.rpc('eth_accounts');
      let signalled: Promise<number | null> | undefined;
      const acked = await load(node, accounts, () => {
        setTimeout(() => (signalled = node.stop('SIGTERM')), 700);
      });
      assert.equal(await signalled, 0, node.output());
      const total = [...acked.values()].reduce((n, l) => n + l.length, 0);
      assert.ok(total > SENDERS, `only ${total} transactions were acknowledged`);
      assert.ok(!readdirSync(dir).some((f) => f.endsWith('.tmp')), 'no temporary file left');

      const again = await startCli(args);
      try {
        for (const [from, hashes] of acked) {
          const txs = await Promise.all(hashes.map((h) => again.rpc('eth_getTransactionByHash', [h])));
          txs.forEach((t, i) => assert.ok(t, `${from}'s acknowledged transaction ${hashes[i]} is known after the restart`));
          assert.deepEqual(txs.map((t) => BigInt(t.nonce)), hashes.map((_, i) => BigInt(i)), `${from}'s nonces are contiguous`);
          const next = BigInt(await again.rpc('eth_getTransactionCount', [from, 'pending']));
          assert.equal(next, BigInt(hashes.length), `${from}'s next nonce continues where it stopped`);
        }
        if (mode === 'block-time') {
          // Pooled ones were kept in the file and are mined by the restarted node.
          const pending = Number(BigInt((await again.rpc('txpool_status')).pending));
          assert.ok(pending >= 0);
          const deadline = Date.now() + 5000;
          while (Number(BigInt((await again.rpc('txpool_status')).pending)) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        }
        for (const hashes of acked.values()) {
          for (const h of hashes) assert.ok(await again.rpc('eth_getTransactionReceipt', [h]), `receipt of ${h}`);
        }
      } finally {
        await again.stop();
      }
    });
  }

  test('a --state path whose folder is missing is refused at start, naming the folder', async () => {
    const missing = join(dir, 'no-such-folder', 'chain.json');
    const r = await startCli(['--state', missing]).catch((e: Error) => e);
    assert.ok(r instanceof Error);
    assert.match(r.message, /error: cannot use --state: state file .*chain\.json: the folder .*no-such-folder does not exist/);
  });

  test('SIGKILL at random moments during periodic writes never leaves a partial file or temporaries', async () => {
    const file = join(dir, 'killed.json');
    const seed = await startCli(['--state', file]);
    // A state of 10,000 accounts, set in a few batches.
    for (let b = 0; b < 10; b++) {
      const batch = Array.from({ length: 1000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'anvil_setBalance', params: ['0x' + (0x100000 + b * 1000 + i).toString(16).padStart(40, '0'), '0x1'] }));
      const res = await fetch(seed.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) });
      assert.equal(res.status, 200);
    }
    assert.equal(await seed.stop('SIGTERM'), 0);

    // Periodic writes of that state leave other requests answered. The bound is a freeze's, not a
    // latency goal: a loaded 2-core machine must not break it (how long a write stalls is measured
    // by the bench).
    const busy = await startCli(['--state', file, '--state-interval', '0.2']);
    const latencies: number[] = [];
    const until = Date.now() + 2500;
    while (Date.now() < until) {
      const t = performance.now();
      await busy.rpc('eth_blockNumber');
      latencies.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 5));
    }
    await busy.stop('SIGKILL');
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.floor(latencies.length * 0.99)]!;
    assert.ok(latencies.length >= 20, `only ${latencies.length} requests answered in 2.5 s of periodic writes`);
    assert.ok(p99 < 1000, `eth_blockNumber p99 ${p99.toFixed(1)} ms during periodic writes (${latencies.length} requests)`);

    for (let round = 0; round < 20; round++) {
      const node = await startCli(['--state', file, '--state-interval', '0.05']);
      assert.match(node.output(), /Loaded state from .*: 10\d{3} accounts/, `round ${round}: the file loads`);
      assert.equal(readdirSync(dir).filter((f) => f.startsWith('killed.json.') && f.endsWith('.tmp')).length, 0, 'stale temporaries are removed at start');
      await new Promise((r) => setTimeout(r, 30 + Math.floor(Math.random() * 300)));
      await node.stop('SIGKILL');
    }
    assert.ok(existsSync(file));
    const last = await startCli(['--state', file]);
    assert.equal(await last.rpc('eth_getBalance', ['0x' + (0x100000 + 9999).toString(16).padStart(40, '0'), 'latest']), '0x1');
    await last.stop();
  });
});
