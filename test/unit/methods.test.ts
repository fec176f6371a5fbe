/**
 * The method table, as users see it: aliases answer as the name they stand for, an unknown method
 * is -32601 naming it, each wrong parameter is -32602 naming that parameter, rpc_modules lists the
 * namespaces, and batches keep order and isolate failures. Batches are a transport's feature (a JSON
 * array body), so that part asks the same in-process node over HTTP on a free port.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { ADDRS, chain, hex, served, type Chain, type Http } from './support.js';
import { BATCH_READS } from '../../src/rpc/batch.js';

const A = ADDRS[0];
const X = '0x00000000000000000000000000000000000000c1';

describe('method table', () => {
  let c: Chain;
  before(async () => {
    c = await chain({ chainId: 31337 });
  });
  after(() => c.close());

  test('unknown methods: -32601 naming the method, in every namespace and for a near miss of a real name', async () => {
    for (const name of ['eth_foo', 'foo', 'anvil_bogus', 'hardhat_nope', 'debug_x', 'evm_setautomine', 'eth_getbalance', 'txpool_', 'eth_getBalance ']) {
      await c.fails(name, [], -32601, `the method ${name} does not exist/is not available`);
    }
  });

  test('every method the README documents is in the table, under each of its names', async () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const methods = readme.slice(readme.indexOf('\n## Methods\n'), readme.indexOf('\n## Forking\n'));
    // Backquoted names; `debug_getRaw*` and the like stand for several.
    const names = [...new Set([...methods.matchAll(/`((?:web3|net|eth|debug|trace|ots|erigon|txpool|personal|evm|anvil|hardhat|rpc)_[A-Za-z0-9_]+)(?![A-Za-z0-9_*])/g)].map((m) => m[1]!))];
    assert.ok(names.length > 140, `${names.length} names found`);
    const missing: string[] = [];
    // A node of its own: called without params, some of these mine, reset or drop.
    const own = await chain();
    try {
      for (const name of names) {
        // A result or -32602, never "does not exist".
        await own.node.provider.request({ method: name, params: [] }).catch((err: { code: number }) => {
          if (err.code === -32601) missing.push(name);
        });
      }
    } finally {
      await own.close();
    }
    assert.deepEqual(missing, []);
  });

  test('the calls a batch runs together are methods of the table, and none of them mines a block', async () => {
    const own = await chain();
    try {
      const head = await own.rpc('eth_getBlockByNumber', 'latest', false);
      const missing: string[] = [];
      for (const name of BATCH_READS) {
        await own.node.provider.request({ method: name, params: [] }).catch((err: { code: number }) => {
          if (err.code === -32601) missing.push(name);
        });
      }
      assert.deepEqual(missing, []);
      assert.deepEqual(await own.rpc('eth_getBlockByNumber', 'latest', false), head);
    } finally {
      await own.close();
    }
  });

  test('aliases answer as the method they stand for', async () => {
    for (const [name, value] of [['anvil_setBalance', '0x11'], ['hardhat_setBalance', '0x12'], ['evm_setAccountBalance', '0x13']] as const) {
      assert.equal(await c.rpc(name, X, value), null);
      assert.equal(await c.rpc('eth_getBalance', X, 'latest'), value, name);
    }
    await c.rpc('anvil_setAutomine', false);
    assert.deepEqual([await c.rpc('anvil_getAutomine'), await c.rpc('hardhat_getAutomine')], [false, false]);
    await c.rpc('evm_setAutomine', true);
    assert.deepEqual([await c.rpc('anvil_getAutomine'), await c.rpc('hardhat_getAutomine')], [true, true]);

    const id = await c.rpc('anvil_snapshot');
    assert.equal(await c.rpc('anvil_increaseTime', 10), 10);
    assert.equal(await c.rpc('evm_increaseTime', 5), 15, 'one offset under both names');
    await c.rpc('hardhat_mine', '0x2');
    await c.rpc('anvil_mine', '0x3');
    assert.equal(await c.rpc('eth_blockNumber'), '0x5');
    const [detailed] = await c.rpc('evm_mine_detailed');
    assert.equal(detailed.number, '0x6');
    assert.equal(await c.rpc('evm_revert', id), true, 'a snapshot by one name reverts by the other');
    assert.equal(await c.rpc('eth_blockNumber'), '0x0');
    assert.equal(await c.rpc('anvil_revert', id), false, 'used up under both names');

    const typed = {
      types: { EIP712Domain: [{ name: 'name', type: 'string' }], Mail: [{ name: 'body', type: 'string' }] },
      primaryType: 'Mail',
      domain: { name: 'unit' },
      message: { body: 'hi' },
    };
    const v4 = await c.rpc('eth_signTypedData_v4', A, typed);
    assert.match(v4, /^0x[0-9a-f]{130}$/);
    assert.equal(await c.rpc('eth_signTypedData', A, typed), v4);

    await c.rpc('anvil_setBalance', X, hex(10n ** 18n));
    await c.rpc('hardhat_impersonateAccount', X);
    const h = await c.rpc('eth_sendTransaction', { from: X, to: A, value: '0x1' });
    assert.equal((await c.rpc('eth_getTransactionReceipt', h)).from, X);
    await c.rpc('anvil_stopImpersonatingAccount', X);
    await c.fails('eth_sendTransaction', [{ from: X, to: A, value: '0x1' }], -32000, /not a dev account and not impersonated/);
  });

  test('-32602 names the wrong parameter: each position, a field of an object, a missing or extra one', async () => {
    const cases: Array<[string, unknown[] | object, string]> = [
      ['eth_getBalance', ['abc'], 'invalid argument 0: hex string without 0x prefix: "abc"'],
      ['eth_getBalance', [A, 'lately'], 'invalid argument 1: expected a block number or one of latest, earliest, pending, safe, finalized; got "lately"'],
      ['eth_getBalance', [A, '0x1z'], 'invalid argument 1: invalid hex QUANTITY "0x1z"'],
      ['eth_getBalance', [A, 1.5], 'invalid argument 1: a block number must be a non-negative integer below 2^53 (or a hex QUANTITY), got 1.5'],
      ['eth_getBalance', [], 'missing value for required argument 0'],
      ['eth_getBalance', {}, 'invalid params: params must be an array of positional arguments'],
      ['eth_getStorageAt', ['0x12', '0x0', 'latest'], 'invalid argument 0: expected address (20 bytes), got 1 bytes'],
      ['eth_getStorageAt', [A, `0x${'1'.repeat(65)}`, 'latest'], `invalid argument 1: expected a hex storage key of at most 32 bytes, got "0x${'1'.repeat(65)}"`],
      ['eth_getStorageAt', [A, '0x0', 7.5], 'invalid argument 2: a block number must be a non-negative integer below 2^53 (or a hex QUANTITY), got 7.5'],
      ['eth_call', [{ to: 'nope' }, 'latest'], 'invalid argument 0.to: hex string without 0x prefix: "nope"'],
      ['eth_call', [{ to: A, gas: 'x' }], 'invalid argument 0.gas: hex string without 0x prefix: "x"'],
      ['eth_call', [{ to: A, value: `0x1${'0'.repeat(64)}` }], `invalid argument 0.value: hex number > 256 bits: "0x1${'0'.repeat(64)}"`],
      ['eth_call', [{ to: A }, 'latest', { [A]: { balance: 'zz' } }], `invalid argument 2.${A}.balance: hex string without 0x prefix: "zz"`],
      ['eth_estimateGas', [{ to: A }, 'latest', {}, 4], 'too many arguments, want at most 3'],
      ['eth_blockNumber', [1], 'too many arguments, want at most 0'],
      ['eth_getBlockByNumber', ['latest', 'yes'], 'invalid argument 1: expected boolean, got "yes"'],
      ['eth_getTransactionCount', [A, { blockHash: '0x12' }], 'invalid argument 1.blockHash: expected hash (32 bytes), got 1 bytes'],
      ['eth_getTransactionByHash', ['0x12'], 'invalid argument 0: expected hash (32 bytes), got 1 bytes'],
      ['eth_getLogs', [{ address: 'x' }], 'invalid argument 0.address: hex string without 0x prefix: "x"'],
      ['eth_getLogs', [{ topics: ['0x12'] }], 'invalid argument 0.topics[0]: expected hash (32 bytes), got 1 bytes'],
      ['eth_feeHistory', ['0x1', 'latest', 'x'], 'invalid argument 2: expected an array of at most 100 percentiles'],
      ['eth_subscribe', ['bogus'], 'invalid argument 0: no "bogus" subscription; expected one of newHeads, logs, newPendingTransactions, syncing'],
      ['anvil_setBalance', [A, '-1'], 'invalid argument 1: hex string without 0x prefix: "-1"'],
      ['anvil_setAutomine', ['true'], 'invalid argument 0: expected boolean, got "true"'],
      ['evm_mine', ['abc'], 'invalid argument 0: expected a number or a hex QUANTITY, got "abc"'],
      ['web3_sha3', ['abc'], 'invalid argument 0: hex string without 0x prefix: "abc"'],
    ];
    for (const [method, params, message] of cases) await c.fails(method, params as unknown[], -32602, message);
    // Nothing of that changed the chain or stopped it answering.
    assert.equal(await c.rpc('eth_chainId'), hex(31337));
  });

  test('-32602 names the argument for typed data and tracer options too', async () => {
    // The README: "a wrong type or format answers -32602 naming the argument".
    await c.fails('eth_signTypedData_v4', [A, '{not json'], -32602, /^invalid argument 1\b/);
    await c.fails('eth_signTypedData_v4', [A, { types: 5 }], -32602, /^invalid argument 1\b/);
    await c.fails('debug_traceCall', [{ to: A }, 'latest', { tracer: 'nope' }], -32602, /^invalid argument 2\b/);
  });

  test('rpc_modules lists every namespace, and each answers a method of its own', async () => {
    const modules = await c.rpc('rpc_modules');
    assert.deepEqual(modules, Object.fromEntries(['web3', 'net', 'eth', 'personal', 'txpool', 'debug', 'trace', 'ots', 'erigon', 'evm', 'anvil', 'hardhat', 'rpc'].map((m) => [m, '1.0'])));
    const probes: Record<string, [string, unknown[]]> = {
      web3: ['web3_sha3', ['0x']],
      net: ['net_version', []],
      eth: ['eth_chainId', []],
      personal: ['personal_sign', ['0x68', A]],
      txpool: ['txpool_status', []],
      debug: ['debug_traceCall', [{ to: A }, 'latest']],
      trace: ['trace_call', [{ to: A }, ['trace'], 'latest']],
      ots: ['ots_getApiLevel', []],
      erigon: ['erigon_getHeaderByNumber', ['0x0']],
      evm: ['evm_snapshot', []],
      anvil: ['anvil_getAutomine', []],
      hardhat: ['hardhat_getAutomine', []],
      rpc: ['rpc_modules', []],
    };
    assert.deepEqual(Object.keys(probes).sort(), Object.keys(modules).sort());
    for (const [ns, [method, params]] of Object.entries(probes)) {
      assert.ok(method.startsWith(`${ns}_`));
      assert.notEqual(await c.rpc(method, ...params), undefined, method);
    }
    assert.equal(await c.rpc('web3_sha3', '0x'), '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    assert.equal(await c.rpc('net_version'), '31337');
  });
});

describe('batches', () => {
  let c: Chain;
  let http: Http;
  before(async () => {
    c = await chain();
    http = await served(c);
  });
  after(() => c.close());
  const post = (body: string) => http.post(body);

  test('one answer per call with an id, in order; a failing call fails alone; aliases resolve inside', async () => {
    const out = await post(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
        { jsonrpc: '2.0', id: 'two', method: 'eth_nope', params: [] },
        { jsonrpc: '2.0', method: 'evm_mine', params: [] },
        { jsonrpc: '2.0', id: 3, method: 'eth_getBalance', params: ['0x12', 'latest'] },
        { jsonrpc: '2.0', id: 4, method: 'hardhat_getAutomine' },
        { jsonrpc: '1.0', id: 5, method: 'eth_chainId' },
        7,
        { jsonrpc: '2.0', id: null, method: 'net_version', params: [] },
      ]),
    );
    assert.deepEqual(out, [
      { jsonrpc: '2.0', id: 1, result: '0x3d8' },
      { jsonrpc: '2.0', id: 'two', error: { code: -32601, message: 'the method eth_nope does not exist/is not available' } },
      { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'invalid argument 0: expected address (20 bytes), got 1 bytes' } },
      { jsonrpc: '2.0', id: 4, result: true },
      out[4],
      out[5],
      { jsonrpc: '2.0', id: null, result: '984' },
    ]);
    assert.equal(out.length, 7, 'the notification (evm_mine) gets no entry, but it ran');
    assert.deepEqual([out[4].id, out[4].error.code], [5, -32600]);
    assert.deepEqual([out[5].id, out[5].error.code], [null, -32600]);
    assert.equal(await c.rpc('eth_blockNumber'), '0x1');
  });

  test('an empty batch is one -32600 error; a batch of notifications answers an empty body', async () => {
    const empty = await post('[]');
    assert.equal(Array.isArray(empty), false);
    assert.equal(empty.error.code, -32600);
    assert.equal(await post(JSON.stringify([{ jsonrpc: '2.0', method: 'evm_mine' }, { jsonrpc: '2.0', method: 'evm_mine' }])), undefined);
    assert.equal(await c.rpc('eth_blockNumber'), '0x3', 'both notifications ran, after the first batch\'s block');
  });
});
