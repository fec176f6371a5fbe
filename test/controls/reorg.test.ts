/**
 * Reorg simulation (anvil_reorg, anvil_rollback) checked against anvil itself, with dropped logs
 * reported `removed: true` to polling filters and WebSocket subscriptions; and a batch of
 * eth_sendTransaction from one account getting consecutive nonces.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Interface, Wallet } from 'ethers';
import WebSocket from 'ws';
import { startAnvil, type Anvil } from '../support/anvil.js';
import { ADDRS, artifact, KEYS, startTestNode, type TestNode, waitForReceipt } from '../support/node.js';

interface Node {
  url: string;
  rpc(method: string, params?: unknown[]): Promise<any>;
}

const events = new Interface(artifact('Events').abi);

const waitReceipt = waitForReceipt;

/** Three blocks (one log-emitting call among them), then a reorg of depth 2 with new transactions. */
async function reorgScenario(n: Node) {
  const send = async (tx: object) => waitReceipt(n, await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], ...tx }]));
  const contract = (await send({ data: artifact('Events').bytecode })).contractAddress;
  const kept = await send({ to: ADDRS[1], value: '0x1' });
  const dropped1 = await send({ to: contract, data: events.encodeFunctionData('pong', [7n]) });
  const dropped2 = await send({ to: ADDRS[2], value: '0x2' });
  const head = BigInt(await n.rpc('eth_blockNumber'));
  const raw = await new Wallet(KEYS[2]).signTransaction({ to: ADDRS[0], value: 3n, gasLimit: 21000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, nonce: 0, chainId: 984n, type: 2 });
  await n.rpc('anvil_reorg', [2, [[{ from: ADDRS[1], to: ADDRS[2], value: '0x5' }, 0], [raw, 1], [{ from: ADDRS[1], to: ADDRS[2], value: '0x6' }, 1]]]);
  const b1 = await n.rpc('eth_getBlockByNumber', ['0x' + (head - 1n).toString(16), true]);
  const b2 = await n.rpc('eth_getBlockByNumber', ['0x' + head.toString(16), true]);
  return {
    head,
    newHead: BigInt(await n.rpc('eth_blockNumber')),
    kept: (await n.rpc('eth_getTransactionReceipt', [kept.transactionHash]))?.status,
    dropped: [await n.rpc('eth_getTransactionReceipt', [dropped1.transactionHash]), await n.rpc('eth_getTransactionReceipt', [dropped2.transactionHash])],
    pooled: await n.rpc('txpool_status'),
    blocks: [b1, b2].map((b) => b.transactions.map((t: { from: string; value: string; nonce: string }) => [t.from.toLowerCase(), t.value, t.nonce])),
    logs: await n.rpc('eth_getLogs', [{ fromBlock: '0x0', address: contract }]),
  };
}

describe('anvil_reorg and anvil_rollback', () => {
  let n: TestNode;
  let anvil: Anvil;
  before(async () => {
    [n, anvil] = await Promise.all([startTestNode(), startAnvil()]);
  });
  after(async () => {
    await n?.close();
    await anvil?.close();
  });

  test('a reorg replaces the last blocks as anvil does', async () => {
    const [ours, theirs] = [await reorgScenario(n), await reorgScenario(anvil)];
    assert.equal(ours.newHead, ours.head, 'as many blocks as were removed');
    assert.deepEqual(ours.dropped, [null, null]);
    assert.deepEqual(ours.blocks, [[[ADDRS[1].toLowerCase(), '0x5', '0x0']], [[ADDRS[2].toLowerCase(), '0x3', '0x0'], [ADDRS[1].toLowerCase(), '0x6', '0x1']]]);
    assert.deepEqual(ours.logs, []);
    for (const k of ['head', 'newHead', 'kept', 'dropped', 'pooled', 'blocks', 'logs'] as const) assert.deepEqual(ours[k], theirs[k], k);
  });

  test('dropped logs reach filters and subscriptions as removed; new heads are announced', async () => {
    const contract = (await waitReceipt(n, await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], data: artifact('Events').bytecode }]))).contractAddress;
    const filter = await n.rpc('eth_newFilter', [{ address: contract }]);
    const ws = new WebSocket(n.wsUrl);
    await new Promise((r) => ws.once('open', r));
    const messages: any[] = [];
    ws.on('message', (m) => messages.push(JSON.parse(String(m))));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['logs', { address: contract }] }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['newHeads'] }));
    while (messages.length < 2) await new Promise((r) => setTimeout(r, 5));
    const logsSub = messages.find((m) => m.id === 1).result;
    const headsSub = messages.find((m) => m.id === 2).result;
    const hash = await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: contract, data: events.encodeFunctionData('pong', [9n]) }]);
    const logged = await waitReceipt(n, hash);
    assert.equal((await n.rpc('eth_getFilterChanges', [filter])).length, 1);
    await n.rpc('anvil_reorg', [1, [[{ from: ADDRS[1], to: ADDRS[2], value: '0x1' }, 0]]]);
    const changes = await n.rpc('eth_getFilterChanges', [filter]);
    assert.equal(changes.length, 1);
    assert.equal(changes[0].removed, true);
    assert.equal(changes[0].transactionHash, logged.transactionHash);
    const deadline = Date.now() + 2000;
    const notes = () => messages.filter((m) => m.method === 'eth_subscription');
    while (notes().filter((m) => m.params.subscription === logsSub).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const logNotes = notes().filter((m) => m.params.subscription === logsSub).map((m) => m.params.result);
    assert.deepEqual(logNotes.map((l) => l.removed), [false, true]);
    const heads = notes().filter((m) => m.params.subscription === headsSub).map((m) => m.params.result.number);
    assert.equal(heads.at(-1), logged.blockNumber, 'the replacement block is announced at the same height');
    ws.close();
  });

  test('anvil_rollback drops blocks (1 by default) and refuses to go below the first block', async () => {
    const head = BigInt(await n.rpc('eth_blockNumber'));
    const hash = await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: ADDRS[1], value: '0x1' }]);
    await n.rpc('evm_mine');
    assert.equal(await n.rpc('anvil_rollback', []), null);
    assert.equal(BigInt(await n.rpc('eth_blockNumber')), head + 1n);
    assert.ok(await n.rpc('eth_getTransactionReceipt', [hash]));
    await n.rpc('anvil_rollback', [1]);
    assert.equal(BigInt(await n.rpc('eth_blockNumber')), head);
    assert.equal(await n.rpc('eth_getTransactionReceipt', [hash]), null);
    assert.equal((await n.rpc('txpool_status')).pending, '0x0', 'rolled-back transactions do not return to the pool');
    const tooDeep = await n.raw('anvil_rollback', ['0x' + (head + 1n).toString(16)]);
    assert.equal(tooDeep.error?.code, -32602);
    const badOffset = await n.raw('anvil_reorg', [1, [[{ from: ADDRS[0], to: ADDRS[1] }, 1]]]);
    assert.equal(badOffset.error?.code, -32602);
    const badPair = await n.raw('anvil_reorg', [1, [['0xzz', 0]]]);
    assert.equal(badPair.error?.code, -32602);
    assert.match(badPair.error!.message, /argument 1\[0\]\[0\]/);
  });
});

describe('a batch of eth_sendTransaction from one account', () => {
  for (const mode of ['automine', 'no-mining'] as const) {
    test(`all 20 succeed with consecutive nonces (${mode})`, async () => {
      const n = await startTestNode(mode === 'no-mining' ? { mining: { auto: false } } : {});
      try {
        const start = BigInt(await n.rpc('eth_getTransactionCount', [ADDRS[1], 'latest']));
        const batch = Array.from({ length: 20 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_sendTransaction', params: [{ from: ADDRS[1], to: ADDRS[2], value: '0x1' }] }));
        const answers = (await n.post(JSON.stringify(batch))).json as Array<{ id: number; result?: string; error?: unknown }>;
        assert.deepEqual(answers.filter((a) => a.error), []);
        if (mode === 'no-mining') await n.rpc('evm_mine');
        const txs = await Promise.all(answers.map((a) => n.rpc('eth_getTransactionByHash', [a.result])));
        assert.deepEqual(txs.map((t) => BigInt(t.nonce)), Array.from({ length: 20 }, (_, i) => start + BigInt(i)), 'in the order of the batch');
        assert.ok(txs.every((t) => t.blockNumber !== null));
      } finally {
        await n.close();
      }
    });
  }
});
