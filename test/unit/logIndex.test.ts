/**
 * The log index, in process: eth_getLogs by address and topics (OR lists, null and [] wildcards),
 * block ranges and blockHash, and logs of blocks dropped by evm_revert / anvil_rollback reported
 * to filters with `removed: true`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encodeDeployData, encodeFunctionData, keccak256, pad, toHex, type Abi } from 'viem';
import { ADDRS, artifact, chain, hex, type Chain } from './support.js';

const abi = artifact('Events').abi as Abi;
const PING = keccak256(toHex('Ping(address,uint256,bytes32,string)'));
const PONG = keccak256(toHex('Pong(uint256)'));
const TAG_X = pad('0xaa', { size: 32 });
const TAG_Y = pad('0xbb', { size: 32 });
const word = (n: bigint | number) => pad(toHex(n), { size: 32 });
const topicOf = (address: string) => pad(address.toLowerCase() as `0x${string}`, { size: 32 });

interface Log {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  transactionIndex: string;
  logIndex: string;
  removed: boolean;
}

async function deployEvents(c: Chain): Promise<string> {
  const hash = await c.rpc('eth_sendTransaction', { from: ADDRS[0], data: encodeDeployData({ abi, bytecode: artifact('Events').bytecode }) });
  return (await c.rpc('eth_getTransactionReceipt', hash)).contractAddress;
}

const call = (c: Chain, from: string, to: string, functionName: string, args: unknown[]) =>
  c.rpc<string>('eth_sendTransaction', { from, to, data: encodeFunctionData({ abi, functionName, args }) });

/** Where each log came from, as `block:event`, in the order given. */
const shape = (logs: Log[]) => logs.map((l) => `${Number(BigInt(l.blockNumber))}:${l.topics[0] === PING ? 'ping' : l.topics[0] === PONG ? 'pong' : 'other'}`);

describe('log index: eth_getLogs', () => {
  let c: Chain;
  let e1: string;
  let e2: string;
  let pingTx: string;
  before(async () => {
    c = await chain();
    e1 = await deployEvents(c); // block 1
    e2 = await deployEvents(c); // block 2
    pingTx = await call(c, ADDRS[0], e1, 'ping', [1n, TAG_X, 'a']); // block 3
    await call(c, ADDRS[1], e2, 'ping', [2n, TAG_Y, 'b']); // block 4
    await call(c, ADDRS[0], e1, 'pong', [7n]); // block 5
    await call(c, ADDRS[0], e2, 'anon', [5n]); // block 6
    await call(c, ADDRS[0], e1, 'many', [3n]); // block 7
    assert.equal(await c.rpc('eth_blockNumber'), '0x7');
  });
  after(() => c.close());
  const logs = (filter: object) => c.rpc<Log[]>('eth_getLogs', { fromBlock: '0x0', toBlock: 'latest', ...filter });

  test('a log carries its block, transaction and position', async () => {
    const [log] = await logs({ fromBlock: '0x3', toBlock: '0x3' });
    const block = await c.rpc('eth_getBlockByNumber', '0x3', false);
    assert.deepEqual(
      { ...log, data: undefined },
      {
        address: e1.toLowerCase(),
        topics: [PING, topicOf(ADDRS[0]), word(1), TAG_X],
        data: undefined,
        blockNumber: '0x3',
        blockHash: block.hash,
        blockTimestamp: block.timestamp,
        transactionHash: pingTx,
        transactionIndex: '0x0',
        logIndex: '0x0',
        removed: false,
      },
    );
    assert.match(log!.data, /^0x0{62}20/, 'the string note, ABI-encoded');
  });

  test('by address: one, or any of a list', async () => {
    assert.deepEqual(shape(await logs({ address: e1 })), ['3:ping', '5:pong', '7:pong', '7:pong', '7:pong']);
    assert.deepEqual(shape(await logs({ address: e2 })), ['4:ping', '6:other']);
    assert.deepEqual(shape(await logs({ address: [e2, e1] })), ['3:ping', '4:ping', '5:pong', '6:other', '7:pong', '7:pong', '7:pong']);
    assert.deepEqual(await logs({ address: '0x00000000000000000000000000000000000000e0' }), []);
    assert.equal((await logs({ address: [] })).length, 7, 'an empty list selects every address, as geth');
  });

  test('by topics: positions, OR lists, null and [] wildcards', async () => {
    assert.deepEqual(shape(await logs({ topics: [PING] })), ['3:ping', '4:ping']);
    assert.deepEqual(shape(await logs({ topics: [[PING, PONG]] })), ['3:ping', '4:ping', '5:pong', '7:pong', '7:pong', '7:pong']);
    assert.deepEqual(shape(await logs({ topics: [null, topicOf(ADDRS[1])] })), ['4:ping']);
    assert.deepEqual(shape(await logs({ topics: [null, [topicOf(ADDRS[0]), topicOf(ADDRS[1])]] })), ['3:ping', '4:ping']);
    assert.deepEqual(shape(await logs({ topics: [[], null, word(2)] })), ['4:ping']);
    assert.deepEqual(shape(await logs({ topics: [PING, null, null, [TAG_Y, TAG_X]] })), ['3:ping', '4:ping']);
    assert.deepEqual(shape(await logs({ topics: [null, null, null, null] })), ['3:ping', '4:ping'], 'four positions: only logs with four topics');
    assert.deepEqual(shape(await logs({ topics: [word(5)] })), ['6:other'], 'an anonymous event: its indexed value is topic 0');
    assert.deepEqual(await logs({ topics: [PONG, word(0)] }), [], 'Pong has no indexed value');
    assert.deepEqual(shape(await logs({ address: e2, topics: [PING] })), ['4:ping'], 'address and topics together');
    await c.fails('eth_getLogs', [{ topics: [null, null, null, null, null] }], -32602, 'invalid argument 0.topics: exceed max topics (at most 4 positions, got 5)');
    const many = await logs({ address: e1, topics: [PONG], fromBlock: '0x7' });
    assert.deepEqual(many.map((l) => [l.logIndex, l.data]), [0, 1, 2].map((i) => [hex(i), word(i)]));
  });

  test('block ranges: bounds inclusive, latest by default, a range past the head or backwards refused', async () => {
    assert.deepEqual(shape(await logs({ fromBlock: '0x4', toBlock: '0x5' })), ['4:ping', '5:pong']);
    assert.deepEqual(shape(await logs({ fromBlock: 'earliest', toBlock: '0x3' })), ['3:ping']);
    assert.deepEqual(shape(await c.rpc('eth_getLogs', {})), ['7:pong', '7:pong', '7:pong'], 'fromBlock and toBlock default to latest');
    assert.deepEqual(shape(await c.rpc('eth_getLogs', { fromBlock: 6 })), ['6:other', '7:pong', '7:pong', '7:pong'], 'a plain number');
    await c.fails('eth_getLogs', [{ fromBlock: '0x5', toBlock: '0x4' }], -32602, /invalid block range params/);
    await c.fails('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x8' }], -32602, /block range extends beyond current head block/);
  });

  test('blockHash: the logs of that block; not together with a range', async () => {
    const block = await c.rpc('eth_getBlockByNumber', '0x7', false);
    const inBlock = await c.rpc<Log[]>('eth_getLogs', { blockHash: block.hash });
    assert.deepEqual(shape(inBlock), ['7:pong', '7:pong', '7:pong']);
    assert.deepEqual(await c.rpc('eth_getLogs', { blockHash: block.hash, address: e2 }), []);
    const b4 = await c.rpc('eth_getBlockByNumber', '0x4', false);
    assert.deepEqual(shape(await c.rpc('eth_getLogs', { blockHash: b4.hash, topics: [PING] })), ['4:ping']);
    await c.fails('eth_getLogs', [{ blockHash: `0x${'12'.repeat(32)}` }], -32000, 'unknown block');
    await c.fails('eth_getLogs', [{ blockHash: block.hash, fromBlock: '0x1' }], -32602, 'invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other');
  });
});

describe('log index: dropped blocks', () => {
  let c: Chain;
  let e: string;
  before(async () => {
    c = await chain();
    e = await deployEvents(c);
  });
  after(() => c.close());
  const changes = (id: string) => c.rpc<Log[]>('eth_getFilterChanges', id);

  test('evm_revert: a filter gets the dropped logs again with removed: true; eth_getLogs no longer has them', async () => {
    const filter = await c.rpc<string>('eth_newFilter', { address: e });
    const snap = await c.rpc('evm_snapshot');
    const h = await call(c, ADDRS[0], e, 'pong', [41n]);
    await call(c, ADDRS[0], e, 'pong', [42n]);
    const seen = await changes(filter);
    assert.deepEqual(seen.map((l) => [l.data, l.removed]), [[word(41), false], [word(42), false]]);
    assert.equal(seen[0]!.transactionHash, h);
    assert.equal(await c.rpc('evm_revert', snap), true);
    const removed = await changes(filter);
    assert.deepEqual(removed.map((l) => [l.data, l.removed]).sort(), [[word(41), true], [word(42), true]]);
    assert.deepEqual(removed.map((l) => ({ ...l, removed: false })).sort((a, b) => a.blockNumber.localeCompare(b.blockNumber)), seen, 'the same logs, marked removed');
    assert.deepEqual(await changes(filter), [], 'reported once');
    assert.deepEqual(await c.rpc('eth_getLogs', { address: e, fromBlock: '0x0' }), []);
  });

  test('anvil_rollback: the dropped logs reach the filter removed, then the new block\'s logs', async () => {
    const filter = await c.rpc<string>('eth_newFilter', { address: e, topics: [PONG] });
    await call(c, ADDRS[0], e, 'pong', [1n]);
    const head = await c.rpc('eth_blockNumber');
    const [first] = await changes(filter);
    assert.equal(first!.blockNumber, head);
    await c.rpc('anvil_rollback', 1);
    assert.equal(await c.rpc('eth_blockNumber'), hex(BigInt(head) - 1n));
    assert.deepEqual(await changes(filter), [{ ...first!, removed: true }]);
    await call(c, ADDRS[0], e, 'pong', [2n]);
    const [again] = await changes(filter);
    assert.deepEqual([again!.blockNumber, again!.data, again!.removed], [head, word(2), false]);
    assert.notEqual(again!.blockHash, first!.blockHash);
    assert.deepEqual((await c.rpc<Log[]>('eth_getLogs', { address: e, fromBlock: '0x0' })).map((l) => l.data), [word(2)]);
    assert.deepEqual((await c.rpc<Log[]>('eth_getFilterLogs', filter)).map((l) => l.data), [word(2)]);
  });

  test('logs on both sides of a run of mass-mined blocks; their block hashes are the blocks\' own', async () => {
    const f = await c.rpc<string>('eth_newFilter', { address: e });
    await call(c, ADDRS[0], e, 'pong', [71n]);
    const first = await c.num('eth_blockNumber');
    await c.rpc('anvil_mine', '0x2710');
    await call(c, ADDRS[0], e, 'pong', [72n]);
    const found = await c.rpc<Log[]>('eth_getLogs', { address: e, fromBlock: hex(first), toBlock: 'latest' });
    assert.deepEqual(found.map((l) => [l.blockNumber, l.data]), [[hex(first), word(71)], [hex(first + 10_001n), word(72)]]);
    for (const l of found) assert.equal(l.blockHash, (await c.rpc('eth_getBlockByNumber', l.blockNumber, false)).hash);
    assert.deepEqual(await c.rpc('eth_getLogs', { address: e, fromBlock: hex(first + 1n), toBlock: hex(first + 10_000n) }), []);
    assert.equal((await changes(f)).length, 2);
    await c.rpc('anvil_rollback', 2);
    assert.deepEqual((await changes(f)).map((l) => [l.blockNumber, l.removed]), [[hex(first + 10_001n), true]]);
  });

  test('a filter reports only blocks inside its range', async () => {
    const head = await c.num('eth_blockNumber');
    const bounded = await c.rpc<string>('eth_newFilter', { address: e, fromBlock: hex(head + 2n), toBlock: hex(head + 2n) });
    for (const v of [100n, 101n, 102n]) await call(c, ADDRS[0], e, 'pong', [v]);
    assert.deepEqual((await changes(bounded)).map((l) => [l.blockNumber, l.data]), [[hex(head + 2n), word(101)]]);
    assert.deepEqual((await c.rpc<Log[]>('eth_getFilterLogs', bounded)).map((l) => l.data), [word(101)]);
  });

  test('a logs subscription on the provider hears the dropped logs with removed: true', async () => {
    const heard: Log[] = [];
    const onMessage = (m: { data: { subscription: string; result: Log } }) => {
      if (m.data.subscription === sub) heard.push(m.data.result);
    };
    c.node.provider.on('message', onMessage);
    const sub: string = await c.rpc('eth_subscribe', 'logs', { address: e, topics: [PONG] });
    try {
      const snap = await c.rpc('evm_snapshot');
      await call(c, ADDRS[0], e, 'pong', [5n]);
      await call(c, ADDRS[0], e, 'ping', [1n, TAG_X, 'not a pong']);
      await c.rpc('evm_revert', snap);
      for (let i = 0; i < 100 && heard.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(heard.map((l) => [l.data, l.removed]), [[word(5), false], [word(5), true]]);
      assert.equal(heard[1]!.blockHash, heard[0]!.blockHash);
    } finally {
      c.node.provider.removeListener('message', onMessage);
      assert.equal(await c.rpc('eth_unsubscribe', sub), true);
    }
  });
});
