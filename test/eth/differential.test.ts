/**
 * Differential: the same requests to node-rpc and anvil; shapes and values must agree wherever the
 * two chains are deterministic (gas, logs, return data, errors), and differ only where documented.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Interface, Wallet } from 'ethers';
import { ADDRS, KEYS, artifact, startTestNode, type TestNode } from '../support/node.js';
import { startAnvil, type Anvil } from '../support/anvil.js';

interface Rpc {
  rpc<T = any>(method: string, params?: unknown[]): Promise<T>;
  raw(method: string, params?: unknown[]): Promise<{ result?: any; error?: { code: number; message: string; data?: unknown } }>;
}

const keys = (o: object) => Object.keys(o).sort();

describe('differential against anvil', () => {
  let ours: TestNode;
  let anvil: Anvil;
  const nodes: Rpc[] = [];
  const w = new Wallet(KEYS[0]);
  const token = new Interface(artifact('Token').abi);
  const reverter = new Interface(artifact('Reverter').abi);
  const addrs: Record<string, string> = {};
  const receipts: Array<[any, any]> = [];

  async function both(method: string, params: unknown[]): Promise<[any, any]> {
    return Promise.all(nodes.map((n) => n.rpc(method, params))) as Promise<[any, any]>;
  }

  async function sendBoth(tx: object): Promise<[any, any]> {
    const out: any[] = [];
    for (const n of nodes) {
      const nonce = Number(await n.rpc('eth_getTransactionCount', [ADDRS[0], 'latest']));
      const raw = await w.signTransaction({ chainId: 984n, type: 2, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, nonce, ...tx });
      const hash = await n.rpc('eth_sendRawTransaction', [raw]);
      let receipt = null;
      for (let i = 0; i < 200 && !receipt; i++) {
        receipt = await n.rpc('eth_getTransactionReceipt', [hash]);
        if (!receipt) await new Promise((r) => setTimeout(r, 10));
      }
      out.push(receipt);
    }
    return out as [any, any];
  }

  before(async () => {
    ours = await startTestNode();
    anvil = await startAnvil(['--hardfork', 'bpo2']);
    nodes.push(ours, anvil);
    const t = artifact('Token');
    const deploy = await sendBoth({ data: t.bytecode + token.encodeDeploy(['Test', 'TST', 10n ** 24n]).slice(2), gasLimit: 3_000_000n });
    assert.equal(deploy[0].contractAddress, deploy[1].contractAddress);
    addrs.token = deploy[0].contractAddress;
    receipts.push(deploy);
    const r = await sendBoth({ data: artifact('Reverter').bytecode, gasLimit: 3_000_000n });
    addrs.reverter = r[0].contractAddress;
    receipts.push(await sendBoth({ to: addrs.token, data: token.encodeFunctionData('transfer', [ADDRS[1], 500n]), gasLimit: 100_000n }));
    receipts.push(await sendBoth({ to: addrs.reverter, data: reverter.encodeFunctionData('revertWithReason'), gasLimit: 100_000n }));
  });
  after(async () => {
    await ours?.close();
    await anvil?.close();
  });

  test('receipts agree on shape, gas and logs', () => {
    // anvil adds blobGasPrice to every receipt; geth (and node-rpc) only to blob transactions'.
    // anvil also adds blockTimestamp, which the execution-apis receipt schema forbids
    // (additionalProperties: false); node-rpc follows the spec (test/spec/schema.test.ts).
    const shape = (r: object) => keys(r).filter((k) => k !== 'blobGasPrice' && k !== 'blockTimestamp');
    for (const [a, b] of receipts) {
      assert.deepEqual(shape(a), shape(b));
      for (const f of ['status', 'gasUsed', 'cumulativeGasUsed', 'contractAddress', 'type', 'from', 'to', 'logsBloom', 'transactionIndex']) assert.equal(a[f], b[f], f);
      assert.deepEqual(
        a.logs.map((l: any) => [l.address, l.topics, l.data, l.logIndex, l.removed]),
        b.logs.map((l: any) => [l.address, l.topics, l.data, l.logIndex, l.removed]),
      );
      for (let i = 0; i < a.logs.length; i++) assert.deepEqual(keys(a.logs[i]), keys(b.logs[i]));
    }
  });

  test('blocks and transactions have the same fields', async () => {
    const [a, b] = await both('eth_getBlockByNumber', ['latest', true]);
    // anvil still gives totalDifficulty; node-rpc's blocks follow geth and the execution-apis spec,
    // which dropped it
    const expectedOnlyAnvil = new Set<string>(['totalDifficulty']);
    const onlyOurs = keys(a).filter((k) => !(k in b));
    const onlyTheirs = keys(b).filter((k) => !(k in a) && !expectedOnlyAnvil.has(k));
    assert.deepEqual(onlyOurs, [], `fields only node-rpc has: ${onlyOurs}`);
    assert.deepEqual(onlyTheirs, [], `fields only anvil has: ${onlyTheirs}`);
    assert.deepEqual(keys(a.transactions[0]), keys(b.transactions[0]));
    const [ta, tb] = [a.transactions[0], b.transactions[0]];
    for (const f of ['hash', 'from', 'to', 'nonce', 'input', 'value', 'gas', 'maxFeePerGas', 'maxPriorityFeePerGas', 'v', 'r', 's', 'yParity', 'chainId', 'type']) assert.equal(ta[f], tb[f], f);
  });

  test('calls, estimates and revert errors agree', async () => {
    const call = { to: addrs.token, data: token.encodeFunctionData('balanceOf', [ADDRS[1]]) };
    const [ca, cb] = await both('eth_call', [call, 'latest']);
    assert.equal(ca, cb);
    const tx = { from: ADDRS[0], to: addrs.token, data: token.encodeFunctionData('transfer', [ADDRS[2], 1n]) };
    const [ea, eb] = await both('eth_estimateGas', [tx]);
    assert.equal(ea, eb);
    for (const fn of ['revertWithReason', 'revertCustom', 'panicAssert', 'revertEmpty']) {
      const req = { to: addrs.reverter, data: reverter.encodeFunctionData(fn) };
      const [ra, rb] = await Promise.all(nodes.map((n) => n.raw('eth_call', [req, 'latest'])));
      assert.ok(ra.error && rb.error, fn);
      assert.equal(ra.error!.data, rb.error!.data, `${fn} data`);
      assert.match(ra.error!.message, /^execution reverted/);
      if (fn === 'revertWithReason') assert.equal(ra.error!.message, rb.error!.message);
    }
  });

  test('account reads and chain constants agree', async () => {
    for (const [m, p] of [
      ['eth_chainId', []],
      ['net_version', []],
      ['eth_getCode', [addrs.token, 'latest']],
      ['eth_getStorageAt', [addrs.token, '0x2', 'latest']],
      ['eth_getTransactionCount', [ADDRS[0], 'latest']],
      ['eth_accounts', []],
    ] as Array<[string, unknown[]]>) {
      const [a, b] = await both(m, p);
      assert.deepEqual(typeof a === 'string' ? a.toLowerCase() : a.map?.((x: string) => x.toLowerCase()) ?? a, typeof b === 'string' ? b.toLowerCase() : b.map?.((x: string) => x.toLowerCase()) ?? b, m);
    }
  });

  test('parameter and method errors use the same codes', async () => {
    for (const [m, p] of [
      ['eth_getBalance', ['0x12', 'latest']],
      ['eth_nope', []],
      ['eth_getBlockByNumber', ['latest', 'yes']],
    ] as Array<[string, unknown[]]>) {
      const [a, b] = await Promise.all(nodes.map((n) => n.raw(m, p)));
      assert.equal(a.error?.code, b.error?.code, m);
    }
  });
});
