/**
 * The provider and HTTP answer alike: a list of methods across the namespaces, with good and bad
 * params, each asked of one node through `node.provider` and through its HTTP server, must get the
 * same result (deep-equal to JSON.parse of the HTTP answer) or the same error code, message and
 * data. Calls that change the chain run between a snapshot and a revert, so both see one state.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encodeDeployData, encodeFunctionData, type Abi } from 'viem';
import { createNode } from '../../src/lib/index.js';
import type { Node } from '../../src/lib/types.js';
import { ADDRS, artifact } from '../support/node.js';

type Answer = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

const OTHER = '0x00000000000000000000000000000000000000f1';

describe('provider and HTTP give the same answers', () => {
  let node: Node;
  let url: string;
  let reverter: string;
  let events: string;
  let txHash: string;
  let blockHash: string;

  const viaProvider = async (method: string, params: unknown[]): Promise<Answer> => {
    try {
      return { result: await node.provider.request({ method, params }) };
    } catch (err) {
      const e = err as { code: number; message: string; data?: unknown };
      return { error: e.data === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, data: e.data } };
    }
  };
  let nextId = 1;
  const viaHttp = async (method: string, params: unknown[]): Promise<Answer> => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }) });
    const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    return body.error ? { error: body.error } : { result: body.result };
  };
  const call = async (method: string, params: unknown[] = []) => {
    const a = await viaProvider(method, params);
    if ('error' in a) throw new Error(`${method}: ${a.error.message}`);
    return a.result as any;
  };

  before(async () => {
    node = await createNode({ chainId: 31337 });
    url = (await node.listen({ port: 0 })).url;
    const deploy = async (name: string) => {
      const a = artifact(name);
      const hash = await call('eth_sendTransaction', [{ from: ADDRS[0], data: encodeDeployData({ abi: a.abi as Abi, bytecode: a.bytecode }) }]);
      return (await call('eth_getTransactionReceipt', [hash])).contractAddress as string;
    };
    reverter = await deploy('Reverter');
    events = await deploy('Events');
    const abi = artifact('Events').abi as Abi;
    txHash = await call('eth_sendTransaction', [{ from: ADDRS[0], to: events, data: encodeFunctionData({ abi, functionName: 'many', args: [3n] }) }]);
    blockHash = (await call('eth_getTransactionReceipt', [txHash])).blockHash;
  });
  after(() => node.close());

  const rev = (fn: string, args: unknown[] = []) => encodeFunctionData({ abi: artifact('Reverter').abi as Abi, functionName: fn, args } as never);

  /** [method, params, changes the chain]. Params are functions where they need the setup's values. */
  const cases: Array<[string, () => unknown[], boolean?]> = [
    ['eth_chainId', () => []],
    ['eth_blockNumber', () => []],
    ['eth_accounts', () => []],
    ['eth_gasPrice', () => []],
    ['eth_maxPriorityFeePerGas', () => []],
    ['eth_feeHistory', () => ['0x3', 'latest', [25, 75]]],
    ['eth_feeHistory', () => ['0x3', 'latest', [75, 25]]],
    ['eth_syncing', () => []],
    ['eth_mining', () => []],
    ['eth_coinbase', () => []],
    ['eth_getBalance', () => [ADDRS[0], 'latest']],
    ['eth_getBalance', () => ['0x1234', 'latest']],
    ['eth_getBalance', () => [ADDRS[0], '0xffffff']],
    ['eth_getTransactionCount', () => [ADDRS[0], 'pending']],
    ['eth_getCode', () => [reverter, 'latest']],
    ['eth_getStorageAt', () => [reverter, '0x0', 'latest']],
    ['eth_getStorageAt', () => [reverter, 'zz', 'latest']],
    ['eth_getBlockByNumber', () => ['latest', true]],
    ['eth_getBlockByNumber', () => ['0x0', false]],
    ['eth_getBlockByNumber', () => ['0x999', false]],
    ['eth_getBlockByNumber', () => [{}, false]],
    ['eth_getBlockByHash', () => [blockHash, false]],
    ['eth_getBlockTransactionCountByHash', () => [blockHash]],
    ['eth_getTransactionByHash', () => [txHash]],
    ['eth_getTransactionByHash', () => ['0x' + '00'.repeat(32)]],
    ['eth_getTransactionReceipt', () => [txHash]],
    ['eth_getBlockReceipts', () => ['latest']],
    ['eth_getLogs', () => [{ fromBlock: '0x0', toBlock: 'latest', address: events }]],
    ['eth_getLogs', () => [{ fromBlock: '0x5', toBlock: '0x1' }]],
    ['eth_call', () => [{ to: reverter, data: rev('counter') }, 'latest']],
    ['eth_call', () => [{ to: reverter, data: rev('revertWithReason') }, 'latest']],
    ['eth_call', () => [{ to: reverter, data: rev('revertCustom') }, 'latest']],
    ['eth_call', () => [{ to: reverter, data: rev('panicDivide', [0n]) }, 'latest']],
    ['eth_call', () => [{ to: reverter, data: '0xzz' }, 'latest']],
    ['eth_estimateGas', () => [{ from: ADDRS[0], to: OTHER, value: '0x1' }]],
    ['eth_estimateGas', () => [{ from: ADDRS[0], to: reverter, data: rev('revertWithReason') }]],
    ['eth_createAccessList', () => [{ from: ADDRS[0], to: reverter, data: rev('counter') }, 'latest']],
    ['eth_getProof', () => [reverter, ['0x0'], 'latest']],
    ['eth_sign', () => [ADDRS[0], '0xdeadbeef']],
    ['eth_sendRawTransaction', () => ['0x1234']],
    ['eth_noSuchMethod', () => []],
    ['eth_getBalance', () => [ADDRS[0], 'latest', 'extra']],
    ['net_version', () => []],
    ['net_listening', () => []],
    ['net_peerCount', () => []],
    ['web3_clientVersion', () => []],
    ['web3_sha3', () => ['0x68656c6c6f']],
    ['web3_sha3', () => ['hello']],
    ['rpc_modules', () => []],
    ['debug_traceTransaction', () => [txHash, { tracer: 'callTracer' }]],
    ['debug_traceTransaction', () => [txHash, {}]],
    ['debug_traceTransaction', () => [txHash, { tracer: 'noSuchTracer' }]],
    ['debug_traceCall', () => [{ to: reverter, data: rev('revertWithReason') }, 'latest', { tracer: 'callTracer' }]],
    ['debug_traceBlockByNumber', () => ['latest', { tracer: 'prestateTracer' }]],
    ['debug_getRawTransaction', () => [txHash]],
    ['txpool_status', () => []],
    ['txpool_content', () => []],
    ['txpool_inspect', () => []],
    ['anvil_nodeInfo', () => []],
    ['anvil_getAutomine', () => []],
    ['anvil_metadata', () => []],
    ['hardhat_metadata', () => []],
    ['anvil_setBalance', () => [OTHER, '0x100'], true],
    ['anvil_setBalance', () => ['0x12', '0x100'], true],
    ['anvil_setCode', () => [OTHER, '0x6000'], true],
    ['hardhat_setNonce', () => [OTHER, '0x5'], true],
    ['anvil_impersonateAccount', () => [OTHER], true],
    ['anvil_mine', () => ['0x2'], true],
    ['anvil_mine', () => ['bad'], true],
    ['evm_mine', () => [], true],
    ['evm_setAutomine', () => [true], true],
    ['evm_setNextBlockTimestamp', () => ['0x1'], true],
    ['eth_sendTransaction', () => [{ from: ADDRS[0], to: OTHER, value: '0x1' }], true],
    ['eth_sendTransaction', () => [{ from: OTHER, to: ADDRS[0], value: '0x1' }], true],
    ['eth_sendTransaction', () => [{ from: ADDRS[0], to: OTHER, value: '0x1', gas: '0x1' }], true],
  ];

  test(`${cases.length} calls across eth, net, web3, rpc, debug, txpool, anvil, hardhat and evm`, async () => {
    const namespaces = new Set(cases.map(([m]) => m.slice(0, m.indexOf('_'))));
    for (const ns of ['eth', 'net', 'web3', 'debug', 'txpool', 'anvil', 'evm', 'hardhat']) assert.ok(namespaces.has(ns), ns);
    let errors = 0;
    for (const [method, paramsOf, mutates] of cases) {
      const params = paramsOf();
      let http: Answer;
      let inProcess: Answer;
      if (mutates) {
        const snap = await call('evm_snapshot');
        http = await viaHttp(method, params);
        assert.equal(await call('evm_revert', [snap]), true);
        const again = await call('evm_snapshot');
        inProcess = await viaProvider(method, params);
        assert.equal(await call('evm_revert', [again]), true);
      } else {
        http = await viaHttp(method, params);
        inProcess = await viaProvider(method, params);
      }
      if ('error' in http) errors++;
      assert.deepStrictEqual(inProcess, http, `${method} ${JSON.stringify(params)}`);
    }
    assert.ok(errors >= 10, `expected at least 10 error answers, got ${errors}`);
  });

  test('a result the caller changes does not change the node', async () => {
    const receipt = await call('eth_getTransactionReceipt', [txHash]);
    receipt.status = '0x0';
    receipt.logs.length = 0;
    const again = await call('eth_getTransactionReceipt', [txHash]);
    assert.equal(again.status, '0x1');
    assert.equal(again.logs.length, 3);
  });

  test('params that are not an array, and requests without a method, are refused as over HTTP', async () => {
    const e = await node.provider.request({ method: 'eth_getBalance', params: { a: 1 } }).catch((err: unknown) => err as { code: number; message: string });
    const h = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: { a: 1 } }) });
    const body = (await h.json()) as { error: { code: number; message: string } };
    assert.deepEqual({ code: e.code, message: e.message }, body.error);
    await assert.rejects(node.provider.request({} as never), { code: -32600 });
  });
});
