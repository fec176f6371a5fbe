/**
 * The node's lock: changes in arrival order, reads taking turns with them (a read waits for at most
 * the change under way, a stream of reads never holds a change back for longer than the reads
 * already waiting), failures passed to their caller without stalling the rest; and through the
 * node, another client's eth_call answered while a WebSocket floods it with pipelined sends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Wallet } from 'ethers';
import { WebSocket } from 'ws';
import { Lock } from '../../src/chain/core/lock.js';
import { ADDRS, KEYS, startTestNode, type TestNode } from '../support/node.js';

const tick = () => new Promise<void>((r) => setImmediate(r));

describe('Lock', () => {
  test('changes run one at a time, in arrival order', async () => {
    const lock = new Lock();
    const seen: string[] = [];
    let running = 0;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        lock.run(async () => {
          running++;
          assert.equal(running, 1, 'one at a time');
          await tick();
          seen.push(`c${i}`);
          running--;
        }),
      ),
    );
    assert.deepEqual(seen, Array.from({ length: 20 }, (_, i) => `c${i}`));
  });

  test('a read queued behind 100 changes runs after the one under way', async () => {
    const lock = new Lock();
    const seen: string[] = [];
    const changes = Array.from({ length: 100 }, (_, i) => lock.run(async () => void (await tick(), seen.push(`c${i}`))));
    await tick();
    const read = lock.read(async () => void seen.push('read'));
    await Promise.all([...changes, read]);
    assert.ok(seen.indexOf('read') <= 1, `the read ran at position ${seen.indexOf('read')}`);
  });

  test('reads that keep coming do not hold a change back past the reads already waiting', async () => {
    const lock = new Lock();
    const seen: string[] = [];
    let more = 50;
    const reader = (name: string): Promise<void> =>
      lock.read(async () => {
        seen.push(name);
        await tick();
        // Each read queues another: an endless stream but for the counter.
        if (more-- > 0) void reader(`r${50 - more}`);
      });
    const first = lock.run(async () => void (await tick(), seen.push('c0')));
    const reads = [reader('a'), reader('b')];
    const second = lock.run(async () => void seen.push('c1'));
    await Promise.all([first, second, ...reads]);
    // c0 was under way; a and b were waiting when it ended; c1 comes right after them.
    assert.deepEqual(seen.slice(0, 4), ['c0', 'a', 'b', 'c1']);
    while (more > 0) await tick();
  });

  test('a failing task rejects its caller and the next one runs', async () => {
    const lock = new Lock();
    await assert.rejects(lock.run(async () => Promise.reject(new Error('boom'))), /boom/);
    await assert.rejects(
      lock.read(() => {
        throw new Error('sync boom');
      }),
      /sync boom/,
    );
    assert.equal(await lock.run(async () => 7), 7);
    assert.equal(await lock.read(async () => 8), 8);
  });
});

describe('another client during a flood of pipelined sends', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
  });
  after(() => node.close());

  test("an eth_call over HTTP is answered long before a WebSocket's backlog of 400 sends", async () => {
    const wallet = new Wallet(KEYS[1]);
    const chainId = 984n;
    const fee = BigInt(await node.rpc('eth_gasPrice')) * 2n;
    const raws = await Promise.all(
      Array.from({ length: 400 }, (_, nonce) => wallet.signTransaction({ type: 2, chainId, nonce, to: ADDRS[2], value: 1n, gasLimit: 21_000n, maxFeePerGas: fee, maxPriorityFeePerGas: 1n })),
    );
    const ws = new WebSocket(node.wsUrl);
    await new Promise((r) => ws.once('open', r));
    let answered = 0;
    const allAnswered = new Promise<void>((resolve) =>
      ws.on('message', () => {
        if (++answered === raws.length) resolve();
      }),
    );
    for (const [i, raw] of raws.entries()) ws.send(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_sendRawTransaction', params: [raw] }));
    // Wait until the flood is under way, then ask from another connection.
    while (answered < 5) await new Promise((r) => setTimeout(r, 1));
    const balance = await node.rpc('eth_getBalance', [ADDRS[2], 'latest']);
    const sendsBefore = answered;
    assert.match(balance, /^0x[0-9a-f]+$/);
    assert.ok(sendsBefore < raws.length / 2, `the read waited for ${sendsBefore} of ${raws.length} sends`);
    await allAnswered;
    ws.close();
    assert.equal(BigInt(await node.rpc('eth_getTransactionCount', [ADDRS[1], 'latest'])), 400n);
  });
});
