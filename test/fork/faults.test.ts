/**
 * Upstream faults: retries with backoff on timeouts, 429, 5xx and malformed answers; past the
 * retries a JSON-RPC error that says the fork upstream failed and why; the node stays up and works
 * again once the upstream does. An unreachable upstream at start is a clear error.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { startDev } from '../../src/lib/start.js';
import { startServer, type RpcServer } from '../../src/server/server.js';
import { RpcCallError, startTestNode, type TestNode } from '../support/node.js';
import { rpcProxy } from '../support/proxy.js';
import { HOLDER, RICH, forkOf, startUpstream, token, type Upstream } from './helpers.js';

type Fault = '429' | '500' | 'garbage' | 'wrong-shape' | 'hang' | 'batch-refused';

/**
 * A proxy in front of the upstream that answers the next requests with queued faults, or leaves
 * every request unanswered while hanging (setHanging).
 */
async function faultyProxy(target: string) {
  const faults: Fault[] = [];
  let hanging = false;
  const json = (body: string) => ({ status: 200, body });
  const proxy = await rpcProxy(target, async (req, forward) => {
    if (hanging) return 'hang';
    const fault = faults.shift();
    if (fault === 'hang') return 'hang';
    if (fault === '429') return { status: 429, body: 'slow down' };
    if (fault === '500') return { status: 500, body: 'boom' };
    if (fault === 'garbage') return json('{"jsonrpc":"2.0","id":1,"res');
    if (fault === 'batch-refused' && req.body.startsWith('[')) {
      return json('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch requests are not supported"}}');
    }
    const r = await forward();
    return fault === 'wrong-shape' ? { ...r, body: r.body.replace(/"result":"0x[0-9a-f]*"/g, '"result":"not a number"') } : r;
  });
  return Object.assign(proxy, {
    faults,
    setHanging(on: boolean) {
      hanging = on;
    },
  });
}

let fresh = 0x5000n;
/** An address nobody read yet (so the fork must ask the upstream). */
const untouched = () => '0x' + (fresh++).toString(16).padStart(40, '0');

describe('fork upstream faults', () => {
  let up: Upstream;
  let proxy: Awaited<ReturnType<typeof faultyProxy>>;
  let fork: TestNode;

  before(async () => {
    up = await startUpstream();
    proxy = await faultyProxy(up.node.url);
    fork = await startTestNode({ fork: forkOf(up, { url: proxy.url, retries: 2, backoffMs: 10, timeoutMs: 300 }) });
  });
  after(async () => {
    await fork?.close();
    await proxy?.close();
    await up?.node.close();
  });

  test('429, 5xx, garbage and results of the wrong shape are retried', async () => {
    for (const fault of ['429', '500', 'garbage', 'wrong-shape'] as const) {
      const retries = fork.node.fork!.client.stats.retries;
      proxy.faults.push(fault);
      assert.equal(await fork.rpc('eth_getBalance', [untouched(), 'latest']), '0x0', fault);
      assert.ok(fork.node.fork!.client.stats.retries > retries, `${fault} was retried`);
    }
    // Two failures in a row, then an answer: still within the retries.
    proxy.faults.push('500', '429');
    assert.equal(await fork.rpc('eth_getCode', [untouched(), 'latest']), '0x');
  });

  test('past the retries the caller gets an error naming the fork upstream and why; later requests work', async () => {
    // Three attempts, each of up to three HTTP requests (an account's reads go as one batch, or as
    // single calls when they leave in separate turns, as on a loaded machine): enough 500s for all.
    proxy.faults.push(...Array<'500'>(9).fill('500'));
    await assert.rejects(fork.rpc('eth_getBalance', [untouched(), 'latest']), (err: RpcCallError) => {
      assert.equal(err.code, -32000);
      assert.match(err.message, /^fork upstream failed: eth_get\w+ to http:\/\/127\.0\.0\.1:\d+: HTTP 500 Internal Server Error \(3 attempts\)$/);
      return true;
    });
    proxy.faults.length = 0;
    assert.equal(BigInt(await fork.rpc('eth_blockNumber')), up.forkBlock);
    assert.equal(await fork.rpc('eth_getBalance', [up.funded[1], 'latest']), '0x7d0');
  });

  test('an upstream that does not answer times out', async () => {
    // Not a count of queued hangs: a retry may go out as more than one request.
    proxy.setHanging(true);
    const t0 = Date.now();
    try {
      await assert.rejects(fork.rpc('eth_getBalance', [untouched(), 'latest']), /fork upstream failed: .*no answer within 300 ms \(3 attempts\)/);
    } finally {
      proxy.setHanging(false);
    }
    assert.ok(Date.now() - t0 >= 900, 'three timeouts');
    assert.equal(await fork.rpc('eth_getBalance', [up.funded[2], 'latest']), '0xbb8');
  });

  test('an upstream that refuses batches gets single requests', async () => {
    proxy.faults.push('batch-refused');
    // One account read is three calls in one burst: a batch, refused, then sent one by one.
    assert.equal(await fork.rpc('eth_getBalance', [up.funded[9], 'latest']), '0x2710');
    const before = proxy.requests;
    assert.equal(await fork.rpc('eth_getBalance', [up.funded[10], 'latest']), '0x2af8');
    assert.equal(proxy.requests - before, 3);
  });

  test('errors the upstream answers about its own history are passed on', async () => {
    // eth_call before the fork block runs upstream: its revert comes back as it is.
    const deployBlock = (await up.node.rpc('eth_getTransactionReceipt', [up.deployTx])).blockNumber;
    const call = { from: RICH, to: up.token, data: token().encodeFunctionData('transfer', [HOLDER, 1n]) };
    const theirs = await up.node.raw('eth_call', [call, deployBlock]);
    assert.match(theirs.error?.message ?? '', /revert/);
    assert.ok(theirs.error?.data, 'revert data');
    const ours = await fork.raw('eth_call', [call, deployBlock]);
    assert.deepEqual(ours.error, theirs.error);
  });
});

describe('fork upstream killed mid-session', () => {
  let up: Upstream;
  let fork: TestNode;
  let restarted: RpcServer | undefined;

  before(async () => {
    up = await startUpstream();
    fork = await startTestNode({ fork: forkOf(up, { retries: 1, backoffMs: 10, timeoutMs: 500 }) });
  });
  after(async () => {
    await fork?.close();
    await restarted?.close();
    await up?.node.close();
  });

  test('requests needing the upstream fail while it is down and work once it is back', async () => {
    // Warm: one account is cached, so it keeps working while the upstream is down.
    assert.equal(await fork.rpc('eth_getBalance', [up.funded[0], 'latest']), '0x3e8');
    const port = Number(new URL(up.node.url).port);
    await up.node.server.close();

    await assert.rejects(fork.rpc('eth_getBalance', [up.funded[4], 'latest']), /fork upstream failed: eth_get\w+ to http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
    // A transaction touching an uncached account fails, and leaves the chain as it was.
    const head = await fork.rpc('eth_blockNumber');
    const sent = await fork.raw('eth_sendTransaction', [{ from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', to: up.funded[5], value: '0x1', gas: '0x5208' }]);
    assert.match(sent.error?.message ?? '', /fork upstream failed/);
    assert.equal(await fork.rpc('eth_blockNumber'), head);
    // Cached state and local history still answer.
    assert.equal(await fork.rpc('eth_getBalance', [up.funded[0], 'latest']), '0x3e8');
    assert.equal((await fork.rpc('eth_getBlockByNumber', ['latest', false])).number, head);

    restarted = await startServer(up.node.dispatcher, { host: '127.0.0.1', port });
    assert.equal(await fork.rpc('eth_getBalance', [up.funded[4], 'latest']), '0x1388');
    const hash = await fork.rpc('eth_sendTransaction', [{ from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', to: up.funded[5], value: '0x1', gas: '0x5208' }]);
    assert.equal((await fork.rpc('eth_getTransactionReceipt', [hash])).status, '0x1');
    assert.equal(await fork.rpc('eth_getBalance', [up.funded[5], 'latest']), '0x1771');
  });
});

describe('fork upstream unreachable at start', () => {
  test('starting fails with a message naming the upstream', async () => {
    const server = http.createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    await new Promise<void>((r) => server.close(() => r()));
    await assert.rejects(startDev({ port: 0, fork: { url: `http://127.0.0.1:${port}`, backoffMs: 5 } }), (err: Error) => {
      assert.match(err.message, new RegExp(`^fork upstream failed: eth_\\w+ to http://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED.*\\(3 attempts\\)$`));
      return true;
    });
    await assert.rejects(startDev({ port: 0, fork: { url: 'ftp://example.com' } }), /only http:\/\/ and https:\/\/ upstreams/);
  });
});
