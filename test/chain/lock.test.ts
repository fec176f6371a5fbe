/**
 * The node's lock: each client's changes in arrival order, clients taking turns (a client's change
 * waits for at most one change of each other client), reads taking turns with changes (a read
 * waits for at most the change under way, a stream of reads never holds a change back for longer
 * than the reads already waiting, a read goes before a change asked for after it), failures passed
 * to their caller without stalling the rest; and through the node, reads pipelined or batched
 * before a change answered in the state before it, and another client's eth_call answered while a
 * WebSocket floods it with pipelined sends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Wallet } from 'ethers';
import { WebSocket } from 'ws';
import { asClient, askingClient, Lock } from '../../src/chain/core/lock.js';
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

  test("client B's change waits for at most one of client A's 100 queued changes; each client's order is kept", async () => {
    const lock = new Lock();
    const a = {};
    const b = {};
    const seen: string[] = [];
    const changes = Array.from({ length: 100 }, (_, i) => lock.run(async () => void (await tick(), seen.push(`a${i}`)), a));
    const fromB = lock.run(async () => void seen.push('b'), b);
    await Promise.all([...changes, fromB]);
    assert.ok(seen.indexOf('b') <= 1, `B's change ran at position ${seen.indexOf('b')}`);
    assert.deepEqual(
      seen.filter((s) => s !== 'b'),
      Array.from({ length: 100 }, (_, i) => `a${i}`),
    );
  });

  test('clients with changes queued take one turn each, in the order they first queued', async () => {
    const lock = new Lock();
    const [a, b, c] = [{}, {}, {}];
    const seen: string[] = [];
    const queue = (client: object, name: string) => lock.run(async () => void (await tick(), seen.push(name)), client);
    const all = [queue(a, 'a0'), queue(a, 'a1'), queue(a, 'a2'), queue(b, 'b0'), queue(b, 'b1'), queue(c, 'c0'), queue(a, 'a3')];
    await Promise.all(all);
    assert.deepEqual(seen, ['a0', 'b0', 'c0', 'a1', 'b1', 'a2', 'a3']);
  });

  test('a client joining later waits behind the clients already queued for one turn each, not their backlogs', async () => {
    const lock = new Lock();
    const [a, b] = [{}, {}];
    const seen: string[] = [];
    const work: Promise<void>[] = [];
    for (let i = 0; i < 50; i++) work.push(lock.run(async () => void (await tick(), seen.push(`a${i}`)), a));
    // Let A's flood get under way, then B asks twice, one after the other.
    while (seen.length < 10) await tick();
    const doneBefore = seen.length;
    work.push(lock.run(async () => void seen.push('b0'), b), lock.run(async () => void seen.push('b1'), b));
    await Promise.all(work);
    const at = seen.indexOf('b0');
    // After at most the change of A's under way.
    assert.ok(at <= doneBefore + 1, `B's first change ran at position ${at}, asked for after ${doneBefore} of A's`);
    // B's second change had B's turn after the first: it waits for one of A's, not for A's backlog.
    assert.ok(seen.indexOf('b1') - at <= 2, `B's second change ran at position ${seen.indexOf('b1')}`);
  });

  test('changes asked for inside asClient are queued as that client, those outside as the node', async () => {
    const lock = new Lock();
    const a = {};
    const seen: string[] = [];
    const work = Array.from({ length: 20 }, (_, i) => asClient(a, () => lock.run(async () => void (await tick(), seen.push(`a${i}`)))));
    assert.equal(askingClient(), undefined);
    work.push(lock.run(async () => void seen.push('node')));
    await Promise.all(work);
    assert.ok(seen.indexOf('node') <= 1, `the node's own change ran at position ${seen.indexOf('node')}`);
  });

  test('a read goes before a change asked for after it, also when the task that ends is a read', async () => {
    const lock = new Lock();
    const seen: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const r0 = lock.read(async () => void (await gate, seen.push('r0')));
    const r1 = lock.read(async () => void seen.push('r1'));
    const c = lock.run(async () => void seen.push('c'));
    const r2 = lock.read(async () => void seen.push('r2'));
    await tick();
    open();
    await Promise.all([r0, r1, c, r2]);
    // r1 was asked for before the change, r2 after it: the change goes between them.
    assert.deepEqual(seen, ['r0', 'r1', 'c', 'r2']);
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

  test('reads pipelined before a change are answered in the state before it', async () => {
    // Sixteen balance reads, then anvil_setBalance of the same account, pipelined over one
    // WebSocket (as Promise.all over a WebSocket provider sends them): the reads were asked for
    // first, so they are answered in the state before the change.
    const who = '0x' + '5b'.repeat(20);
    const ws = new WebSocket(node.wsUrl);
    await new Promise((r) => ws.once('open', r));
    const answers = new Map<number, { result?: unknown; error?: unknown }>();
    const all = new Promise<void>((resolve) =>
      ws.on('message', (data: Buffer) => {
        const msg = JSON.parse(data.toString('utf8')) as { id: number; result?: unknown; error?: unknown };
        answers.set(msg.id, msg);
        if (answers.size === 17) resolve();
      }),
    );
    for (let id = 0; id < 16; id++) ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_getBalance', params: [who, 'latest'] }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 16, method: 'anvil_setBalance', params: [who, '0x1234'] }));
    await all;
    ws.close();
    assert.equal(answers.get(16)!.error, undefined, JSON.stringify(answers.get(16)));
    const balances = Array.from({ length: 16 }, (_, id) => answers.get(id)!.result);
    assert.deepEqual(balances, balances.map(() => '0x0'), `balances: ${balances.join(', ')}`);
    assert.equal(await node.rpc('eth_getBalance', [who, 'latest']), '0x1234');
  });

  test('a batch [read, change, read] answers the first read before the change and the second after it', async () => {
    const who = '0x' + '5c'.repeat(20);
    for (const value of ['0x2000', '0x2001']) {
      const before = await node.rpc<string>('eth_getBalance', [who, 'latest']);
      const res = await fetch(node.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([
          { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [who, 'latest'] },
          { jsonrpc: '2.0', id: 2, method: 'anvil_setBalance', params: [who, value] },
          { jsonrpc: '2.0', id: 3, method: 'eth_getBalance', params: [who, 'latest'] },
        ]),
      });
      const answers = (await res.json()) as { id: number; result?: unknown; error?: unknown }[];
      assert.deepEqual(
        answers.map((a) => [a.id, a.error === undefined ? a.result : a.error]),
        [
          [1, before],
          [2, null],
          [3, value],
        ],
      );
    }
  });

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
