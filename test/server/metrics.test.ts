/**
 * Observability: GET /metrics in the Prometheus text format (calls and errors per method, a
 * latency histogram, calls refused per tier, connections, subscriptions, blocks, pool) in every
 * mode, GET /health, and the access log of --public in text and JSON.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startDev, type Running } from '../../src/lib/start.js';
import { startCli } from '../support/cli.js';
import { ADDRS } from '../support/node.js';
import { call, openSocket, poster, request, waitFor } from './helpers.js';

const HOST = '127.0.0.1';

/** Sample lines of a Prometheus text answer: `name{labels}` → value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(\S+) (\S+)$/.exec(line);
    assert.ok(m, `malformed sample line: ${line}`);
    out.set(m[1], Number(m[2]));
  }
  return out;
}

describe('GET /metrics and /health', () => {
  let node: Running;
  before(async () => {
    node = await startDev({ port: 0, host: HOST, explorer: false, mining: { auto: false }, transport: { rateLimitWs: 5 } });
  });
  after(() => node.close());

  test('/metrics counts calls, errors by code, durations, refused calls per tier, connections and the chain', async () => {
    const client = poster(node.server.url);
    for (let i = 0; i < 3; i++) await client.post(call('eth_chainId', [], i));
    await client.post([call('eth_blockNumber', [], 1), call('eth_getBalance', ['0xnothex'], 2), call('no_such', [], 3)]);
    await client.post(call('eth_sendTransaction', [{ from: ADDRS[0], to: ADDRS[1], value: '0x1' }]));
    const s = await openSocket(node.server.wsUrl);
    s.ws.send(JSON.stringify(call('eth_subscribe', ['newHeads'], 'sub')));
    assert.ok((await s.next()).result);
    for (let i = 0; i < 20; i++) s.ws.send(JSON.stringify(call('eth_chainId', [], i)));
    await waitFor(() => s.messages.length === 20);
    const refused = s.messages.filter((m) => m.error?.code === -32005).length;
    assert.ok(refused > 0);

    const res = await request(node.server.url, { path: '/metrics' });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.match(res.text, /# TYPE noderpc_rpc_duration_seconds histogram/);
    const m = samples(res.text);
    assert.ok(m.get('noderpc_rpc_requests_total{method="eth_chainId"}')! >= 3 + 20 - refused);
    assert.equal(m.get('noderpc_rpc_requests_total{method="eth_blockNumber"}'), 1);
    assert.equal(m.get('noderpc_rpc_errors_total{method="eth_getBalance",code="-32602"}'), 1);
    assert.equal(m.get('noderpc_rpc_errors_total{method="no_such",code="-32601"}'), 1);
    assert.equal(m.get('noderpc_rpc_duration_seconds_count{method="eth_blockNumber"}'), 1);
    assert.equal(m.get('noderpc_rpc_duration_seconds_bucket{method="eth_blockNumber",le="+Inf"}'), 1);
    assert.ok(m.get('noderpc_rpc_duration_seconds_bucket{method="eth_chainId",le="0.01"}')! >= 3, 'eth_chainId answers in under 10 ms');
    assert.equal(m.get('noderpc_rate_limited_total{tier="ws"}'), refused);
    assert.equal(m.get('noderpc_rate_limited_total{tier="ip"}'), 0);
    assert.equal(m.get('noderpc_ws_connections'), 1);
    assert.ok(m.get('noderpc_http_connections')! >= 2);
    assert.equal(m.get('noderpc_ws_messages_total'), 21);
    assert.equal(m.get('noderpc_subscriptions'), 1);
    assert.equal(m.get('noderpc_txpool_transactions'), 1, 'automine is off: the transaction waits');
    assert.equal(m.get('noderpc_block_number'), 0);
    assert.ok(m.get('noderpc_http_responses_total{status="200"}')! >= 5);

    await client.post(call('evm_mine'));
    const after = samples((await request(node.server.url, { path: '/metrics' })).text);
    assert.equal(after.get('noderpc_block_number'), 1);
    assert.equal(after.get('noderpc_txpool_transactions'), 0);
    s.ws.close();
    client.close();
    await waitFor(() => node.server.connections() === 0);
  });

  test('/health answers ok with the chain id, block number, pool and WebSocket connections', async () => {
    const res = await request(node.server.url, { path: '/health' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { status: 'ok', chainId: 984, blockNumber: 1, txpool: 0, wsConnections: 0 });
    assert.deepEqual((await request(node.server.url, { path: '/' })).json, { status: 'ok' }, 'other paths keep the short answer');
  });
});

describe('the access log of node-rpc dev --public', () => {
  for (const format of ['text', 'json'] as const) {
    test(`one ${format} line per request: time, ip, method(s), status, duration, key prefix`, async () => {
      const node = await startCli(['--public', '--host', HOST, '--api-key', 'team-key-123456', '--rate-limit-ip', '2', '--log-format', format]);
      try {
        const client = poster(node.url, { sockets: 1 });
        await client.post(call('eth_chainId'));
        await client.post([call('eth_blockNumber', [], 1), call('eth_blockNumber', [], 2), call('eth_chainId', [], 3)], { 'x-api-key': 'team-key-123456' });
        const limited = await Promise.all(Array.from({ length: 4 }, () => client.post(call('net_version'))));
        assert.ok(limited.some((r) => r.status === 429));
        client.close();
        await waitFor(() => node.output().split('\n').filter((l) => l.includes('net_version')).length >= 4, 5000);
        const lines = node.output().split('\n');
        if (format === 'text') {
          const line = '(\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z) 127\\.0\\.0\\.1 POST';
          assert.ok(lines.some((l) => new RegExp(`^${line} eth_chainId 200 [\\d.]+ms$`).test(l)), node.output());
          assert.ok(lines.some((l) => new RegExp(`^${line} eth_blockNumber×2,eth_chainId 200 [\\d.]+ms key=team…$`).test(l)));
          assert.ok(lines.some((l) => new RegExp(`^${line} net_version 429 [\\d.]+ms$`).test(l)));
        } else {
          const entries = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
          const keyed = entries.find((e) => e.key !== undefined);
          assert.deepEqual(Object.keys(keyed).sort(), ['ip', 'key', 'methods', 'ms', 'status', 'time', 'transport', 'verb']);
          assert.deepEqual({ ...keyed, time: undefined, ms: undefined }, { ip: '127.0.0.1', transport: 'http', verb: 'POST', methods: ['eth_blockNumber', 'eth_blockNumber', 'eth_chainId'], status: 200, key: 'team…', time: undefined, ms: undefined });
          assert.ok(!Number.isNaN(Date.parse(keyed.time)) && keyed.ms >= 0);
          assert.ok(entries.some((e) => e.methods[0] === 'net_version' && e.status === 429));
        }
        assert.ok(!node.output().includes('team-key-123456'), 'the key is never printed whole');
      } finally {
        await node.stop();
      }
    });
  }
});
