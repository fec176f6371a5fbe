import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { keccak256, toUtf8Bytes } from 'ethers';
import { startTestNode, type TestNode } from '../support/node.js';
import { VERSION } from '../../src/lib/version.js';

describe('JSON-RPC envelope', () => {
  let n: TestNode;
  before(async () => {
    n = await startTestNode();
  });
  after(() => n.close());

  test('non-JSON body is a parse error with a null id', async () => {
    const r = await n.post('{"jsonrpc":"2.0",');
    assert.equal(r.status, 200);
    assert.equal(r.json.error.code, -32700);
    assert.equal(r.json.id, null);
  });

  test('envelope problems are -32600, params of the wrong kind -32602', async () => {
    const cases: Array<[unknown, number, RegExp]> = [
      [{ jsonrpc: '1.0', id: 1, method: 'eth_chainId' }, -32600, /jsonrpc must be "2.0"/],
      [{ id: 1, method: 'eth_chainId' }, -32600, /jsonrpc/],
      [{ jsonrpc: '2.0', id: 1 }, -32600, /method must be a non-empty string/],
      [{ jsonrpc: '2.0', id: 1, method: 42 }, -32600, /method/],
      [{ jsonrpc: '2.0', id: { a: 1 }, method: 'eth_chainId' }, -32600, /id must be/],
      [{ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: { a: 1 } }, -32602, /params must be an array/],
      [42, -32600, /request object/],
    ];
    for (const [body, code, message] of cases) {
      const r = await n.post(JSON.stringify(body));
      assert.equal(r.json.error.code, code, JSON.stringify(body));
      assert.match(r.json.error.message, message);
    }
  });

  test('unknown methods are -32601 and named', async () => {
    const r = await n.raw('eth_doesNotExist');
    assert.equal(r.error!.code, -32601);
    assert.match(r.error!.message, /eth_doesNotExist/);
  });

  test('wrong parameters are -32602 naming the argument', async () => {
    const r = await n.raw('eth_getBalance', ['0x1234', 'latest']);
    assert.equal(r.error!.code, -32602);
    assert.match(r.error!.message, /argument 0/);
    const missing = await n.raw('eth_getBalance', []);
    assert.equal(missing.error!.code, -32602);
    assert.match(missing.error!.message, /missing value for required argument 0/);
    const tooMany = await n.raw('eth_chainId', [1]);
    assert.equal(tooMany.error!.code, -32602);
    assert.match(tooMany.error!.message, /too many arguments/);
  });

  test('batches keep order, skip notifications and isolate errors', async () => {
    const r = await n.post(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'eth_chainId' },
        { jsonrpc: '2.0', method: 'eth_blockNumber' },
        { jsonrpc: '2.0', id: 'b', method: 'nope_nope' },
        { jsonrpc: '2.0', id: 'c', method: 'net_version' },
        'garbage',
      ]),
    );
    assert.ok(Array.isArray(r.json));
    assert.deepEqual(
      r.json.map((x: { id: unknown }) => x.id),
      ['a', 'b', 'c', null],
    );
    assert.equal(r.json[0].result, '0x3d8');
    assert.equal(r.json[1].error.code, -32601);
    assert.equal(r.json[2].result, '984');
    assert.equal(r.json[3].error.code, -32600);
  });

  test('a batch runs its calls in order: each sees what the calls before it did', async () => {
    const start = BigInt(await n.rpc<string>('eth_blockNumber'));
    const r = await n.post(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' },
        { jsonrpc: '2.0', id: 2, method: 'evm_snapshot' },
        { jsonrpc: '2.0', id: 3, method: 'evm_mine' },
        { jsonrpc: '2.0', id: 4, method: 'eth_blockNumber' },
        { jsonrpc: '2.0', id: 5, method: 'eth_getBlockByNumber', params: ['latest', false] },
        { jsonrpc: '2.0', id: 6, method: 'evm_revert', params: ['$snapshot'] },
        { jsonrpc: '2.0', id: 7, method: 'eth_blockNumber' },
      ]).replace('"$snapshot"', JSON.stringify(await n.rpc<string>('evm_snapshot'))),
    );
    const answers = r.json as { id: number; result: unknown }[];
    assert.deepEqual(
      answers.map((a) => a.id),
      [1, 2, 3, 4, 5, 6, 7],
    );
    assert.equal(BigInt(answers[0]!.result as string), start);
    assert.equal(BigInt(answers[3]!.result as string), start + 1n);
    assert.equal(BigInt((answers[4]!.result as { number: string }).number), start + 1n);
    assert.equal(answers[5]!.result, true);
    assert.equal(BigInt(answers[6]!.result as string), start);
  });

  test('an empty batch is one invalid-request error; a batch of notifications answers nothing', async () => {
    const empty = await n.post('[]');
    assert.equal(empty.json.error.code, -32600);
    const notes = await n.post(JSON.stringify([{ jsonrpc: '2.0', method: 'eth_chainId' }]));
    assert.equal(notes.text, '');
  });

  test('web3_clientVersion is <client>/<version>/<os-arch>/<runtime>, four fields, the client starting with anvil', async () => {
    const v = await n.rpc<string>('web3_clientVersion');
    assert.equal(v.split('/').length, 4, v);
    assert.doesNotMatch(v, /\s/);
    assert.match(v, /^[A-Za-z0-9._+-]+\/v\d+\.\d+\.\d+[^/]*\/[a-z0-9]+-[a-z0-9_]+\/[a-z]+-v?\d+\.\d+\.\d+$/);
    assert.equal(v, `anvil-node-rpc/v${VERSION}/${process.platform}-${process.arch}/node-${process.version}`);
    // hardhat-network-helpers' gate, verbatim in spirit: the lowercase string starts with one of three tokens.
    assert.ok(['hardhatnetwork', 'zksync', 'anvil'].some((t) => v.toLowerCase().startsWith(t)));
  });

  test('web3_sha3 is keccak-256 and validates hex', async () => {
    assert.equal(await n.rpc('web3_sha3', ['0x68656c6c6f']), keccak256(toUtf8Bytes('hello')));
    assert.equal(await n.rpc('web3_sha3', ['0x']), keccak256('0x'));
    for (const bad of ['hello', '0x123', '0xzz']) {
      const r = await n.raw('web3_sha3', [bad]);
      assert.equal(r.error!.code, -32602, bad);
    }
  });

  test('net_* and rpc_modules', async () => {
    assert.equal(await n.rpc('net_version'), '984');
    assert.equal(await n.rpc('net_listening'), true);
    assert.equal(await n.rpc('net_peerCount'), '0x0');
    const modules = await n.rpc<Record<string, string>>('rpc_modules');
    for (const ns of ['eth', 'net', 'web3']) assert.ok(modules[ns], ns);
  });

  test('the server survives hostile input and keeps answering', async () => {
    const junk = ['', 'null', '[[]]', '{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":[null,null,null]}', '\u0000\u0001', '{'.repeat(5000)];
    for (const body of junk) await n.post(body);
    assert.equal(await n.rpc('eth_chainId'), '0x3d8');
  });
});
