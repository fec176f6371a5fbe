/**
 * The contract code size limit flags, as anvil has them: `--code-size-limit <bytes>` (init code
 * may be twice as long) and `--disable-code-size-limit` (no limit on either, hardhat's
 * allowUnlimitedContractSize). They hold on every path: mined transactions, eth_call and the call
 * workers (a contract that creates one), eth_estimateGas, debug_traceCall, a forked chain. The
 * same deployments come out the same on anvil started with the same flag.
 */
import assert from 'node:assert/strict';
import { watchWorkers } from '../support/workers.js';
import { after, before, describe, test } from 'node:test';
import { AbiCoder, Interface } from 'ethers';
import type { CallReply } from '../../src/chain/exec/offload/protocol.js';
import { startAnvil } from '../support/anvil.js';
import { startCli, type CliNode } from '../support/cli.js';
import { ADDRS, artifact, startTestNode, waitForReceipt, type TestNode } from '../support/node.js';

type Raw = (method: string, params: unknown[]) => Promise<{ result?: any; error?: { code: number; message: string } }>;

const large = new Interface(artifact('Large').abi);
/** Large's creation: a contract of `size` bytes of runtime code. */
const creation = (size: number) => artifact('Large').bytecode + AbiCoder.defaultAbiCoder().encode(['uint256'], [size]).slice(2);
/** A creation transaction of `size` bytes of init code (it deploys nothing). */
const initCode = (size: number) => '0x' + '00'.repeat(size);
// Under Osaka's transaction gas cap (2^24), which the node enforces and anvil only with --enable-tx-gas-limit.
const GAS = '0xf42400';

/** What deploying each of these does on a node: a receipt status, or the error's message. */
async function outcomes(raw: Raw, rpc: (m: string, p: unknown[]) => Promise<any>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const cases: Record<string, string> = {
    'runtime 24576': creation(24_576),
    'runtime 30000': creation(30_000),
    'runtime 50000': creation(50_000),
    'init code 60000': initCode(60_000),
    'init code 90000': initCode(90_000),
  };
  for (const [name, data] of Object.entries(cases)) {
    const r = await raw('eth_sendTransaction', [{ from: ADDRS[0], data, gas: GAS }]);
    out[name] = r.error ? 'refused' : (await waitForReceipt({ rpc: (m, p) => rpc(m, p ?? []) }, r.result)).status;
  }
  return out;
}

describe('code size limit flags against anvil', () => {
  for (const flags of [[], ['--code-size-limit', '40000'], ['--disable-code-size-limit']]) {
    test(`${flags.join(' ') || 'no flag'}: the same deployments succeed, fail or are refused on both`, async () => {
      const [ours, anvil] = await Promise.all([startCli(flags), startAnvil(flags)]);
      try {
        const a = await outcomes((m, p) => ours.send(m, p), (m, p) => ours.rpc(m, p));
        const b = await outcomes((m, p) => anvil.raw(m, p), (m, p) => anvil.rpc(m, p));
        assert.deepEqual(a, b);
        const expected = {
          '': { 'runtime 24576': '0x1', 'runtime 30000': '0x0', 'runtime 50000': '0x0', 'init code 60000': 'refused', 'init code 90000': 'refused' },
          '--code-size-limit 40000': { 'runtime 24576': '0x1', 'runtime 30000': '0x1', 'runtime 50000': '0x0', 'init code 60000': '0x1', 'init code 90000': 'refused' },
          '--disable-code-size-limit': { 'runtime 24576': '0x1', 'runtime 30000': '0x1', 'runtime 50000': '0x1', 'init code 60000': '0x1', 'init code 90000': '0x1' },
        }[flags.join(' ')];
        assert.deepEqual(a, expected);
      } finally {
        await ours.stop();
        await anvil.close();
      }
    });
  }

  test('an init code over the limit is refused naming the sizes; the banner names the limit; the two flags exclude each other', async () => {
    const node: CliNode = await startCli(['--code-size-limit', '40000']);
    try {
      assert.match(node.output(), /Code size limit: 40000 bytes \(init code 80000\)/);
      for (const method of ['eth_sendTransaction', 'eth_estimateGas', 'eth_call']) {
        const r = await node.send(method, [{ from: ADDRS[0], data: initCode(90_000) }]);
        assert.deepEqual(r.error, { code: -32000, message: 'max initcode size exceeded: code size 90000, limit 80000' }, method);
      }
    } finally {
      await node.stop();
    }
    await assert.rejects(startCli(['--code-size-limit', '40000', '--disable-code-size-limit']), /--code-size-limit and --disable-code-size-limit cannot be used together/);
    await assert.rejects(startCli(['--code-size-limit', 'big']), /code size limit must be a whole number/);
  });
});

describe('without a code size limit, every path deploys large contracts', () => {
  let n: TestNode;
  let factory: string;
  const replies: CallReply['kind'][] = [];

  before(async () => {
    n = await startTestNode({ chain: { codeSizeLimit: Number.POSITIVE_INFINITY }, callWorkers: 1 });
    const workers = n.node.callWorkers!;
    watchWorkers(workers, replies, true);
    const hash = await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], data: creation(0) }]);
    factory = (await waitForReceipt(n, hash)).contractAddress;
    for (let i = 0; i < 100 && !workers.available(); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(workers.available(), 'the worker started');
  });
  after(() => n.close());

  test('a mined transaction, eth_call on a worker and on the main thread, eth_estimateGas and debug_traceCall', async () => {
    const deploy = { from: ADDRS[0], to: factory, data: large.encodeFunctionData('deploy', [60_000]) };
    const before = replies.length;
    const created = await n.rpc('eth_call', [deploy]);
    assert.deepEqual(replies.slice(before), ['ok']);
    const workers = n.node.callWorkers;
    n.node.configure({ callWorkers: undefined });
    try {
      assert.equal(await n.rpc('eth_call', [deploy]), created);
    } finally {
      n.node.configure({ callWorkers: workers });
    }
    const gas = BigInt(await n.rpc('eth_estimateGas', [deploy]));
    const trace = await n.rpc('debug_traceCall', [deploy, 'latest', { tracer: 'callTracer' }]);
    assert.equal(trace.error, undefined);
    assert.equal(trace.calls[0].type, 'CREATE');
    const hash = await n.rpc('eth_sendTransaction', [{ ...deploy, gas: `0x${gas.toString(16)}` }]);
    assert.equal((await waitForReceipt(n, hash)).status, '0x1');
    const child = large.decodeFunctionResult('last', await n.rpc('eth_call', [{ to: factory, data: large.encodeFunctionData('last') }]))[0] as string;
    assert.equal((await n.rpc('eth_getCode', [child])).length, 2 + 2 * 60_000);
    const mined = await n.rpc('debug_traceTransaction', [hash, { tracer: 'callTracer' }]);
    assert.equal(mined.error, undefined);
  });

  test('a chain forked from one with the default limit deploys past it', async () => {
    const up = await startTestNode();
    try {
      const fork = await startTestNode({ fork: { url: up.url, retries: 1, timeoutMs: 2000 }, chain: { codeSizeLimit: Number.POSITIVE_INFINITY } });
      try {
        const hash = await fork.rpc('eth_sendTransaction', [{ from: ADDRS[0], data: creation(30_000), gas: GAS }]);
        const receipt = await waitForReceipt(fork, hash);
        assert.equal(receipt.status, '0x1');
        assert.equal((await fork.rpc('eth_getCode', [receipt.contractAddress])).length, 2 + 2 * 30_000);
      } finally {
        await fork.close();
      }
      // The upstream, with the default limit, refuses the same deployment.
      const hash = await up.rpc('eth_sendTransaction', [{ from: ADDRS[0], data: creation(30_000), gas: GAS }]);
      assert.equal((await waitForReceipt(up, hash)).status, '0x0');
    } finally {
      await up.close();
    }
  });
});
