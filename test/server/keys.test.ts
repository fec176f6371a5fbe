/**
 * API keys: accepted as Bearer, X-API-Key, /<key> and /v1/<key>, over HTTP and at the WebSocket
 * upgrade; an unknown key is 401 with a JSON-RPC error, never the public tier; keyed calls count
 * per key (two keys get the spec's 1000/s each); keys are never logged whole; `--api-keys` is
 * read again on SIGHUP.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startDev, type Running } from '../../src/lib/start.js';
import type { AccessEntry } from '../../src/server/access.js';
import { startServer, type RpcServer } from '../../src/server/server.js';
import { startCli } from '../support/cli.js';
import { call, openSocket, paced, poster, stubDispatcher, waitFor, type Reply } from './helpers.js';
import { tempDir } from '../support/tmp.js';

const HOST = '127.0.0.1';
const ALPHA = 'alpha-key-000000000001';
const BETA = 'beta-key-0000000000002';

function assertUnknownKey(r: Reply): void {
  assert.equal(r.status, 401);
  assert.equal(r.json.id, null);
  assert.equal(r.json.error.code, -32000);
  assert.match(r.json.error.message, /unknown API key "wron…"/);
  assert.ok(!r.text.includes('wrong-key-0000'), 'the presented key is not echoed whole');
}

describe('API keys', () => {
  let server: RpcServer;
  const log: AccessEntry[] = [];
  before(async () => {
    server = await startServer(stubDispatcher(), { host: HOST, port: 0, apiKeys: [ALPHA, BETA], rateLimit: { ip: 100, key: 1000 }, onAccess: (e) => log.push(e) });
  });
  after(() => server.close());

  test('a known key is taken from Authorization: Bearer, X-API-Key, /<key> and /v1/<key>, and counted in the key tier', async () => {
    const client = poster(server.url);
    const forms: Array<[Record<string, string>, string]> = [
      [{ authorization: `Bearer ${ALPHA}` }, '/'],
      [{ 'x-api-key': ALPHA }, '/'],
      [{}, `/${ALPHA}`],
      [{}, `/v1/${ALPHA}`],
      [{}, `/v1/${ALPHA}?x=1`],
    ];
    for (const [headers, path] of forms) {
      const r = await client.post(call('test_echo', [path]), headers, path);
      assert.equal(r.status, 200, `${JSON.stringify(headers)} ${path}`);
      assert.equal(r.json.result, path);
      assert.equal(r.headers['ratelimit-limit'], '1000', 'the key tier');
    }
    // Paths that are not key forms are the public tier.
    for (const path of ['/', '/some/path', '/v1', '/v1/']) {
      const r = await client.post(call('test_echo', [1]), {}, path);
      assert.equal(r.status, 200, path);
      assert.equal(r.headers['ratelimit-limit'], '100', `${path}: the per-IP tier`);
    }
    client.close();
  });

  test('an unknown key is 401 with a JSON-RPC error in every form, never served in the public tier', async () => {
    const client = poster(server.url);
    assertUnknownKey(await client.post(call('test_echo', [1]), { authorization: 'Bearer wrong-key-0000' }));
    assertUnknownKey(await client.post(call('test_echo', [1]), { 'x-api-key': 'wrong-key-0000' }));
    assertUnknownKey(await client.post(call('test_echo', [1]), {}, '/wrong-key-0000'));
    assertUnknownKey(await client.post(call('test_echo', [1]), {}, '/v1/wrong-key-0000'));
    client.close();
  });

  test('over WebSocket the key is read at the upgrade: a known one is served in its tier, an unknown one refused with 401', async () => {
    for (const [url, headers] of [
      [server.wsUrl, { authorization: `Bearer ${BETA}` }],
      [server.wsUrl, { 'x-api-key': BETA }],
      [`${server.wsUrl}/${BETA}`, {}],
      [`${server.wsUrl}/v1/${BETA}`, {}],
    ] as const) {
      const s = await openSocket(url, { headers });
      s.ws.send(JSON.stringify(call('test_transport', [], 7)));
      assert.deepEqual(await s.next(), { jsonrpc: '2.0', id: 7, result: 'ws' });
      s.ws.close();
    }
    for (const [url, headers] of [
      [server.wsUrl, { authorization: 'Bearer wrong-key-0000' }],
      [`${server.wsUrl}/v1/wrong-key-0000`, {}],
    ] as const) {
      const refused = await openSocket(url, { headers }).then(
        () => assert.fail('upgrade accepted'),
        (err: { status: number; body: string }) => err,
      );
      assert.equal(refused.status, 401);
      assert.match(JSON.parse(refused.body).error.message, /unknown API key/);
    }
    await waitFor(() => server.connections() === 0);
  });

  test('keyed calls do not draw on the per-IP bucket', async () => {
    const client = poster(server.url);
    const flood = await Promise.all(Array.from({ length: 40 }, (_, i) => client.post(call('test_echo', [i], i))));
    assert.ok(flood.some((r) => r.status === 429), 'the IP bucket is empty');
    const keyed = await client.post(call('test_echo', ['k']), { 'x-api-key': BETA });
    assert.equal(keyed.status, 200);
    assert.equal(keyed.json.result, 'k');
    client.close();
  });

  test('the access log names a key by its first four characters only', () => {
    const keyed = log.filter((e) => e.key !== undefined);
    assert.ok(keyed.length >= 5);
    assert.ok(keyed.every((e) => e.key === 'alph…' || e.key === 'beta…'));
    const message = log.find((e) => e.verb === 'WS' && e.methods[0] === 'test_transport');
    assert.deepEqual({ ...message, time: 0, ms: 0 }, { time: 0, ip: '127.0.0.1', transport: 'ws', verb: 'WS', methods: ['test_transport'], status: 200, ms: 0, key: 'beta…' });
    assert.ok(log.some((e) => e.transport === 'ws' && e.verb === 'GET' && e.status === 101 && e.key === 'beta…'), 'accepted upgrades');
    assert.ok(log.some((e) => e.transport === 'ws' && e.verb === 'GET' && e.status === 401 && e.key === undefined), 'refused upgrades');
    const text = JSON.stringify(log);
    assert.ok(!text.includes(ALPHA) && !text.includes(BETA) && !text.includes('wrong-key-0000'));
  });

  test('setApiKeys replaces the known keys', async () => {
    const client = poster(server.url);
    server.setApiKeys([BETA]);
    assert.equal((await client.post(call('test_echo', [1]), { 'x-api-key': ALPHA })).status, 401);
    assert.equal((await client.post(call('test_echo', [1]), { 'x-api-key': BETA })).status, 200);
    server.setApiKeys([ALPHA, BETA]);
    assert.equal((await client.post(call('test_echo', [1]), { 'x-api-key': ALPHA })).status, 200);
    client.close();
  });
});

describe('two API keys at the spec default of 1000 calls a second', () => {
  let node: Running;
  before(async () => {
    node = await startDev({ port: 0, host: HOST, shared: true, explorer: false, transport: { apiKeys: [ALPHA, BETA] } });
  });
  after(() => node.close());

  test('each key sending 3000 calls a second in batches of 50 is served 1000 a second (±10%), independently of the other', async (t) => {
    const run = async (key: string) => {
      const client = poster(node.server.url, { sockets: 6 });
      const batch = (b: number) => Array.from({ length: 50 }, (_, j) => call('eth_chainId', [], b * 50 + j));
      const { results, seconds } = await paced(60, 2500, (b) => client.post(batch(b), { authorization: `Bearer ${key}` }));
      client.close();
      let served = 0;
      for (const r of results) {
        assert.equal(r.headers['ratelimit-limit'], '1000');
        assert.equal(r.json.length, 50);
        if (r.status === 200) served += r.json.filter((a: any) => a.result === '0x3d8').length;
        else assert.ok(r.status === 429 && r.json.every((a: any) => a.error.code === -32005));
      }
      return served / seconds;
    };
    const [a, b] = await Promise.all([run(ALPHA), run(BETA)]);
    t.diagnostic(`${a.toFixed(0)} and ${b.toFixed(0)} calls/s served`);
    for (const rate of [a, b]) assert.ok(rate >= 900 && rate <= 1100, `${rate.toFixed(0)} calls/s served for one key`);
  });
});

describe('node-rpc dev --api-keys', () => {
  test('the key file is read again on SIGHUP; a bad file keeps the keys in use; keys are never printed whole', async () => {
    const dir = tempDir('node-rpc-keys-');
    const file = join(dir, 'keys.txt');
    writeFileSync(file, `# team keys\n${ALPHA}\n\n`);
    const node = await startCli(['--public', '--host', HOST, '--api-keys', file]);
    try {
      const client = poster(node.url);
      const status = async (key: string) => (await client.post(call('eth_chainId'), { 'x-api-key': key })).status;
      assert.equal(await status(ALPHA), 200);
      assert.equal(await status(BETA), 401);
      writeFileSync(file, `${BETA}\n`);
      node.proc.kill('SIGHUP');
      await waitFor(() => node.output().includes('API keys reloaded'), 5000);
      assert.equal(await status(ALPHA), 401);
      assert.equal(await status(BETA), 200);
      writeFileSync(file, 'not/a/key\n');
      node.proc.kill('SIGHUP');
      await waitFor(() => node.output().includes('API keys not reloaded'), 5000);
      assert.match(node.output(), /keys\.txt line 1: not an API key/);
      assert.equal(await status(BETA), 200);
      client.close();
      await waitFor(() => node.output().includes('key=beta…'), 5000);
      assert.ok(!node.output().includes(ALPHA) && !node.output().includes(BETA), 'no key printed whole');
    } finally {
      await node.stop();
    }
  });
});
