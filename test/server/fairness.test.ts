/**
 * Fairness between connections: while one WebSocket floods the node with 2,000 pipelined
 * transactions (automine: one block each), another client's transaction waits for about one of the
 * flood's blocks, not for its backlog; the flood's own transactions keep the order they were sent in.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Wallet } from 'ethers';
import { WebSocket } from 'ws';
import { ADDRS, KEYS, startTestNode, type TestNode } from '../support/node.js';

const FLOOD = 2_000;

describe("one connection's backlog of sends does not hold up another's", () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
  });
  after(() => node.close());

  test("another client's eth_sendRawTransaction is mined long before a WebSocket's 2,000 pipelined ones", async () => {
    const chainId = 984n;
    const fee = BigInt(await node.rpc('eth_gasPrice')) * 2n;
    const tx = (nonce: number) => ({ type: 2, chainId, nonce, to: ADDRS[0], value: 1n, gasLimit: 21_000n, maxFeePerGas: fee, maxPriorityFeePerGas: 1n });
    const flooder = new Wallet(KEYS[1]);
    const raws = await Promise.all(Array.from({ length: FLOOD }, (_, nonce) => flooder.signTransaction(tx(nonce))));
    const other = await new Wallet(KEYS[2]).signTransaction(tx(0));
    const startBlock = Number(BigInt(await node.rpc('eth_blockNumber')));

    const ws = new WebSocket(node.wsUrl);
    await new Promise((r) => ws.once('open', r));
    const hashes: string[] = new Array(FLOOD);
    let answered = 0;
    const allAnswered = new Promise<void>((resolve, reject) =>
      ws.on('message', (data) => {
        const msg = JSON.parse(String(data)) as { id: number; result?: string; error?: unknown };
        if (msg.result === undefined) return reject(new Error(`send ${msg.id} failed: ${JSON.stringify(msg.error)}`));
        hashes[msg.id] = msg.result;
        if (++answered === FLOOD) resolve();
      }),
    );
    for (const [i, raw] of raws.entries()) ws.send(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_sendRawTransaction', params: [raw] }));
    // Once the flood is under way, the other client sends its one transaction over HTTP.
    while (answered < 5) await new Promise((r) => setTimeout(r, 1));
    const otherHash = await node.rpc('eth_sendRawTransaction', [other]);
    // eth_sendTransaction fills the transaction (nonce, fees, an estimate) before it takes the lock:
    // it too waits for a turn, not for the backlog.
    const filledHash = await node.rpc('eth_sendTransaction', [{ from: ADDRS[2], to: ADDRS[0], value: '0x1' }]);
    const floodAnsweredBefore = answered;
    await allAnswered;
    ws.close();

    assert.ok(floodAnsweredBefore < FLOOD, 'answered before the flood was through');
    // Positions on the chain: one block per transaction, in the order the lock ran them.
    const otherBlock = Number(BigInt((await node.rpc('eth_getTransactionReceipt', [otherHash])).blockNumber));
    const floodAhead = otherBlock - startBlock - 1;
    assert.ok(floodAhead < FLOOD / 2, `${floodAhead} of the flood's ${FLOOD} transactions were mined before the other client's`);
    const filledBlock = Number(BigInt((await node.rpc('eth_getTransactionReceipt', [filledHash])).blockNumber));
    assert.ok(filledBlock - startBlock - 2 < FLOOD / 2, `${filledBlock - startBlock - 2} of the flood's transactions were mined before the other client's second`);
    // The flood's transactions were mined in the order they were sent: nonce i in the i-th block of the flood.
    const head = Number(BigInt(await node.rpc('eth_blockNumber')));
    assert.equal(head, startBlock + FLOOD + 2);
    const last = await node.rpc('eth_getTransactionReceipt', [hashes[FLOOD - 1]]);
    assert.equal(Number(BigInt(last.blockNumber)), head);
    const others = [otherBlock, filledBlock];
    for (const i of [0, floodAhead - 1, floodAhead, FLOOD - 1].filter((i) => i >= 0)) {
      // The i-th of the flood's blocks, counting past the other client's two.
      let block = startBlock + 1 + i;
      for (const o of others) if (block >= o) block++;
      const got = await node.rpc('eth_getTransactionByHash', [hashes[i]]);
      assert.equal(Number(BigInt(got.blockNumber)), block, `the flood's transaction ${i} is in block ${block}`);
      assert.equal(Number(BigInt(got.nonce)), i);
    }
  });
});
