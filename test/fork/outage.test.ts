/**
 * A fork whose upstream freezes (SIGSTOP) or dies (SIGKILL): cached reads keep answering in
 * milliseconds, uncached ones fail within 5 s with a clear -32000 (twenty at once as fast as one),
 * and everything works again once the upstream is back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startCli, type CliNode } from '../support/cli.js';
import { ADDRS, startTestNode, type TestNode } from '../support/node.js';

let fresh = 0x7000n;
const untouched = () => '0x' + (fresh++).toString(16).padStart(40, '0');

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

describe('fork upstream outage', () => {
  let upstream: CliNode;
  let fork: TestNode;
  let port: number;
  before(async () => {
    upstream = await startCli([]);
    port = Number(new URL(upstream.url).port);
    // Default retries, backoff and per-request timeout: only the read deadline bounds the wait.
    fork = await startTestNode({ fork: { url: upstream.url, blockNumber: 0n } });
    await fork.rpc('eth_getBalance', [ADDRS[0], 'latest']);
  });
  after(async () => {
    await fork?.close();
    await upstream?.stop('SIGKILL');
  });

  const cachedIsFast = async () => {
    const r = await timed(() => fork.rpc('eth_getBalance', [ADDRS[0], 'latest']));
    // An uncached read waits out the 4 s deadline; a cached one must not reach upstream at all.
    assert.ok(r.ms < 2000, `cached read took ${r.ms.toFixed(0)} ms`);
  };
  const uncachedFails = async (n: number) => {
    const r = await timed(() => Promise.all(Array.from({ length: n }, () => fork.raw('eth_getBalance', [untouched(), 'latest']))));
    // 20 reads waited out one after another would take 80 s; together they take the one deadline.
    assert.ok(r.ms < 12_000, `${n} uncached reads took ${r.ms.toFixed(0)} ms`);
    for (const a of r.value) {
      assert.equal(a.error?.code, -32000);
      assert.match(a.error!.message, /fork upstream did not answer within 4000 ms/);
    }
  };

  test('frozen: cached reads answer at once, uncached fail within 5 s, then recover', async () => {
    upstream.proc.kill('SIGSTOP');
    try {
      await cachedIsFast();
      const pending = uncachedFails(20);
      // While twenty reads wait for the frozen upstream, cached ones are not held up.
      await new Promise((r) => setTimeout(r, 200));
      await cachedIsFast();
      await pending;
    } finally {
      upstream.proc.kill('SIGCONT');
    }
    const back = await fork.rpc('eth_getBalance', [untouched(), 'latest']);
    assert.equal(back, '0x0');
  });

  test('dead: the same, and a restarted upstream serves again', async () => {
    assert.equal(await upstream.stop('SIGKILL'), null);
    await cachedIsFast();
    await uncachedFails(1);
    upstream = await startCli(['--port', String(port)]);
    // The client retries with backoff; within a few seconds reads go through again.
    const deadline = Date.now() + 10_000;
    let answer;
    do answer = await fork.raw('eth_getBalance', [untouched(), 'latest']);
    while (answer.error && Date.now() < deadline);
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
  });
});
