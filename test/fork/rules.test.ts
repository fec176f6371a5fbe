/**
 * A fork picks its rules from the fork block: an upstream that says it is mainnet (chain id 1) at a
 * pre-cancun block runs that block's fork there, and its local blocks follow mainnet's schedule;
 * `--hardfork` overrides; a chain whose forks the node does not know runs the default. The
 * upstream is a node-rpc with chain id 1 behind a proxy that presents its head as mainnet's block
 * 15,000,000 (arrow glacier: london's rules) or 17,100,000 (shanghai), with that block's time: no network.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestNode, type TestNode } from '../support/node.js';
import { rpcProxy, type RpcProxy } from '../support/proxy.js';

const AT = '0x00000000000000000000000000000000000000cc';
/** PUSH0 STOP (shanghai), BASEFEE POP STOP (london), PUSH0 PUSH0 TSTORE STOP (cancun). */
const CODE = { push0: '0x5f00', basefee: '0x485000', tstore: '0x5f5f5d00' };

/** A proxy presenting `upstream`'s head as block `number` at `time` of chain 1. */
async function mainnetAt(upstream: TestNode, number: bigint, time: bigint): Promise<RpcProxy> {
  const tag = '0x' + number.toString(16);
  const rewriteParams = (r: any) => ({ ...r, params: (r.params ?? []).map((p: unknown) => (p === tag ? 'latest' : p)) });
  return rpcProxy(upstream.url, async (req, forward) => {
    const body = JSON.parse(req.body);
    const batch = Array.isArray(body);
    const calls: any[] = batch ? body : [body];
    req.body = JSON.stringify(batch ? calls.map(rewriteParams) : rewriteParams(body));
    const reply = await forward();
    const answers: any[] = [].concat(JSON.parse(reply.body));
    for (const a of answers) {
      const method = calls.find((c) => c.id === a.id)?.method;
      if (method === 'eth_blockNumber') a.result = tag;
      if (method === 'eth_getBlockByNumber' && a.result) Object.assign(a.result, { number: tag, timestamp: '0x' + time.toString(16) });
    }
    return { status: reply.status, body: JSON.stringify(batch ? answers : answers[0]) };
  });
}

/** Starts nodes forking `url` (a few quick retries), each noted in `nodes` to be closed after the tests. */
const forker =
  (nodes: TestNode[]) =>
  async (url: string, chain: Record<string, unknown> = {}): Promise<TestNode> => {
    const n = await startTestNode({ chain, fork: { url, retries: 2, backoffMs: 20, timeoutMs: 5000 } });
    nodes.push(n);
    return n;
  };

/** Whether `code` runs at block `block` of `n`. */
const runs = async (n: TestNode, code: string, block: string): Promise<boolean> => (await n.raw('eth_call', [{ to: AT }, block, { [AT]: { code } }])).error === undefined;

describe('a fork runs the rules of its fork block', () => {
  let upstream: TestNode;
  let other: TestNode;
  const proxies: RpcProxy[] = [];
  const nodes: TestNode[] = [];
  const fork = forker(nodes);

  before(async () => {
    upstream = await startTestNode({ chain: { chainId: 1n } });
    other = await startTestNode({ chain: { chainId: 137n } });
    await upstream.rpc('evm_mine');
  });
  after(async () => {
    for (const n of nodes) await n.close();
    for (const p of proxies) await p.close();
    await upstream?.close();
    await other?.close();
  });

  test('mainnet at block 15,000,000 runs london\'s rules there, and its local blocks mainnet\'s schedule', async () => {
    const proxy = await mainnetAt(upstream, 15_000_000n, 1_655_000_000n);
    proxies.push(proxy);
    const n = await fork(proxy.url);
    assert.equal(n.node.config.schedule?.forks[0].fork, 'chainstart');
    assert.equal(await runs(n, CODE.basefee, '0xe4e1c0'), true, 'BASEFEE (london) at the fork block');
    assert.equal(await runs(n, CODE.push0, '0xe4e1c0'), false, 'no PUSH0 (shanghai) at the fork block');
    // The fork block's header as the local chain holds it: london's fields, none of shanghai's.
    const header = await n.rpc('eth_getBlockByNumber', ['0xe4e1c0', false]);
    assert.equal(header.number, '0xe4e1c0');
    // Local blocks follow mainnet's schedule: by number they are before the merge (block
    // 15,537,394), so still arrow glacier's rules, whatever their time (shanghai needs the merge, as in geth).
    await n.rpc('evm_mine');
    const local = await n.rpc('eth_getBlockByNumber', ['latest', false]);
    assert.equal(local.number, '0xe4e1c1');
    assert.ok('baseFeePerGas' in local && !('withdrawalsRoot' in local), 'a local block has london\'s fields, not shanghai\'s');
    assert.equal(await runs(n, CODE.tstore, 'latest'), false, 'no TSTORE in a local block');
    assert.equal((await n.rpc('anvil_nodeInfo')).hardFork, 'ArrowGlacier');
  });

  test('mainnet at a shanghai block: PUSH0 there, no TSTORE', async () => {
    const proxy = await mainnetAt(upstream, 17_100_000n, 1_682_000_000n);
    proxies.push(proxy);
    const n = await fork(proxy.url);
    const tag = '0x' + (17_100_000).toString(16);
    assert.equal(await runs(n, CODE.push0, tag), true);
    assert.equal(await runs(n, CODE.tstore, tag), false);
    // Past the merge, local blocks mined now (2026) run mainnet's current fork.
    await n.rpc('evm_mine');
    const local = await n.rpc('eth_getBlockByNumber', ['latest', false]);
    assert.ok('requestsHash' in local && 'withdrawalsRoot' in local, 'a local block mined now has prague\'s fields');
    assert.equal(await runs(n, CODE.tstore, 'latest'), true, 'TSTORE in a local block');
    assert.equal((await n.rpc('anvil_nodeInfo')).hardFork, 'Bpo2');
  });

  test('--hardfork overrides the fork block\'s rules', async () => {
    const proxy = await mainnetAt(upstream, 15_000_000n, 1_655_000_000n);
    proxies.push(proxy);
    const n = await fork(proxy.url, { hardfork: 'cancun' });
    assert.equal(n.node.config.schedule, undefined);
    assert.equal(await runs(n, CODE.tstore, '0xe4e1c0'), true);
    assert.equal((await n.rpc('anvil_nodeInfo')).hardFork, 'Cancun');
  });

  test('a chain whose forks are not known runs the default', async () => {
    const n = await fork(other.url);
    assert.equal(n.node.config.schedule, undefined);
    assert.equal(n.node.config.hardfork, 'bpo2');
    assert.equal(await runs(n, CODE.tstore, 'latest'), true);
  });
});

describe('anvil_reset to another upstream picks the rules again', () => {
  let mainnet: TestNode;
  let other: TestNode;
  let proxy: RpcProxy;
  const nodes: TestNode[] = [];
  const fork = forker(nodes);

  before(async () => {
    mainnet = await startTestNode({ chain: { chainId: 1n } });
    other = await startTestNode({ chain: { chainId: 137n } });
    await mainnet.rpc('evm_mine');
    proxy = await mainnetAt(mainnet, 15_000_000n, 1_655_000_000n);
  });
  after(async () => {
    for (const n of nodes) await n.close();
    await proxy?.close();
    await mainnet?.close();
    await other?.close();
  });

  test('from a chain of unknown forks to mainnet at block 15,000,000: london\'s rules there, mainnet\'s schedule after', async () => {
    const n = await fork(other.url);
    assert.equal(await runs(n, CODE.tstore, 'latest'), true);
    assert.equal(await n.rpc('anvil_reset', [{ forking: { jsonRpcUrl: proxy.url } }]), null);
    assert.equal(await n.rpc('eth_chainId'), '0x1', 'the chain id follows the upstream');
    assert.equal(n.node.config.schedule?.forks[0].fork, 'chainstart');
    assert.equal(await runs(n, CODE.basefee, '0xe4e1c0'), true, 'BASEFEE (london) at the fork block');
    assert.equal(await runs(n, CODE.push0, '0xe4e1c0'), false, 'no PUSH0 (shanghai) at the fork block');
    await n.rpc('evm_mine');
    assert.equal(await runs(n, CODE.tstore, 'latest'), false, 'no TSTORE in a local block');
    assert.equal((await n.rpc('anvil_nodeInfo')).hardFork, 'ArrowGlacier');
  });

  test('from mainnet at block 15,000,000 to a chain of unknown forks: the default, as a start there', async () => {
    const n = await fork(proxy.url);
    assert.equal(await runs(n, CODE.push0, 'latest'), false);
    await n.rpc('hardhat_reset', [{ forking: { jsonRpcUrl: other.url } }]);
    assert.equal(await n.rpc('eth_chainId'), '0x89');
    assert.equal(n.node.config.schedule, undefined);
    assert.equal(n.node.config.hardfork, 'bpo2');
    assert.equal(await runs(n, CODE.tstore, 'latest'), true);
    await n.rpc('evm_mine');
    assert.equal(await runs(n, CODE.tstore, 'latest'), true);
    assert.equal((await n.rpc('anvil_nodeInfo')).hardFork, 'Bpo2');
  });

  test('--hardfork stays through a reset to another upstream', async () => {
    const n = await fork(other.url, { hardfork: 'cancun' });
    await n.rpc('anvil_reset', [{ forking: { jsonRpcUrl: proxy.url } }]);
    assert.equal(n.node.config.schedule, undefined);
    assert.equal(await runs(n, CODE.tstore, '0xe4e1c0'), true);
    assert.equal((await n.rpc('anvil_nodeInfo')).hardFork, 'Cancun');
  });
});
