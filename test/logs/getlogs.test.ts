import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADDRS, startTestNode, type TestNode } from '../support/node.js';
import { call, deployEvents, PING, PONG, send, word, type RpcLog } from './helpers.js';

const TAG_X = '0x' + 'aa'.repeat(32);
const TAG_Y = '0x' + 'bb'.repeat(32);
const NOWHERE = '0x' + '00'.repeat(19) + '01';
const NO_TOPIC = '0x' + 'ee'.repeat(32);

/** geth's matching rule, written independently of the node, to check the node against. */
type Topics = Array<string | Array<string | null> | null>;

function reference(logs: RpcLog[], f: { address?: string | string[]; topics?: Topics }): RpcLog[] {
  const addrs = f.address === undefined ? [] : (Array.isArray(f.address) ? f.address : [f.address]).map((a) => a.toLowerCase());
  const topics = f.topics ?? [];
  return logs.filter((l) => {
    if (addrs.length > 0 && !addrs.includes(l.address)) return false;
    if (topics.length > l.topics.length) return false;
    return topics.every((t, i) => t === null || (Array.isArray(t) ? t.length === 0 || t.includes(null) || t.includes(l.topics[i]) : t === l.topics[i]));
  });
}

describe('eth_getLogs', () => {
  let n: TestNode;
  let a: string;
  let b: string;
  let all: RpcLog[];
  const acct0 = word(ADDRS[0]);
  const acct1 = word(ADDRS[1]);

  before(async () => {
    n = await startTestNode();
    a = await deployEvents(n);
    b = await deployEvents(n, ADDRS[1]);
    await send(n, { to: a, data: call.ping(1, TAG_X, 'one') });
    await send(n, { to: a, data: call.pong(10) });
    for (let i = 0; i < 5; i++) await n.node.miner.mineNow(); // empty blocks in between
    await send(n, { to: b, data: call.ping(2, TAG_Y, 'two'), from: ADDRS[1] });
    await send(n, { to: b, data: call.many(3) });
    await send(n, { to: a, data: call.anon(5) });
    await send(n, { to: a, data: call.ping(3, TAG_X, 'three'), from: ADDRS[1] });
    all = await n.rpc('eth_getLogs', [{ fromBlock: 'earliest', toBlock: 'latest' }]);
  });
  after(() => n.close());

  test('every log, ordered by block then logIndex, with geth fields equal to the receipts', async () => {
    assert.equal(all.length, 8);
    const keys = all.map((l) => [Number(l.blockNumber), Number(l.logIndex)]);
    const sorted = [...keys].sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    assert.deepEqual(keys, sorted);
    // The three Pongs of many(3) share a block and transaction, indexes 0..2.
    const many = all.filter((l) => l.address === b.toLowerCase() && l.topics[0] === PONG);
    assert.deepEqual(many.map((l) => l.logIndex), ['0x0', '0x1', '0x2']);
    assert.equal(new Set(many.map((l) => l.transactionHash)).size, 1);
    for (const l of all) {
      assert.deepEqual(Object.keys(l), ['address', 'topics', 'data', 'blockNumber', 'blockHash', 'blockTimestamp', 'transactionHash', 'transactionIndex', 'logIndex', 'removed']);
      assert.equal(l.removed, false);
      const receipt = await n.rpc('eth_getTransactionReceipt', [l.transactionHash]);
      assert.ok(receipt.logs.some((r: RpcLog) => JSON.stringify(r) === JSON.stringify(l)), 'same object as in the receipt');
      const block = await n.rpc('eth_getBlockByNumber', [l.blockNumber, false]);
      assert.equal(l.blockHash, block.hash);
      assert.equal(l.blockTimestamp, block.timestamp);
    }
  });

  test('defaults to the latest block; tags safe/finalized mean the head', async () => {
    const latest: RpcLog[] = await n.rpc('eth_getLogs', [{}]);
    const head = await n.rpc('eth_blockNumber');
    assert.deepEqual(latest, all.filter((l) => l.blockNumber === head));
    for (const tag of ['safe', 'finalized']) {
      assert.deepEqual(await n.rpc('eth_getLogs', [{ fromBlock: tag, toBlock: tag }]), latest, tag);
    }
    assert.deepEqual(await n.rpc('eth_getLogs', [{ fromBlock: '0x0' }]), all, 'toBlock defaults to latest');
  });

  test('topic matching table: wildcards, OR, positions, multiple addresses', async () => {
    const cases: Array<[string, { address?: string | string[]; topics?: Topics }, number]> = [
      ['no criteria', {}, 8],
      ['one address', { address: a }, 4],
      ['address in mixed case', { address: b.toUpperCase().replace('0X', '0x') }, 4],
      ['two addresses (OR)', { address: [a, b] }, 8],
      ['address array with an unused one', { address: [NOWHERE, b] }, 4],
      ['empty address array = any', { address: [] }, 8],
      ['unused address', { address: NOWHERE }, 0],
      ['event signature', { topics: [PING] }, 3],
      ['signature OR', { topics: [[PING, PONG]] }, 7],
      ['signature with a null member = wildcard', { topics: [[PING, null]] }, 8],
      ['empty OR array = wildcard', { topics: [[]] }, 8],
      ['wildcard first, sender second', { topics: [null, acct1] }, 2],
      ['second position OR', { topics: [PING, [acct0, acct1]] }, 3],
      ['third position only', { topics: [null, null, word(3)] }, 1],
      ['fourth position', { topics: [null, null, null, TAG_X] }, 2],
      ['four positions exact', { topics: [PING, acct0, word(1), TAG_X] }, 1],
      ['trailing wildcards need that many topics', { topics: [null, null] }, 3],
      ['one wildcard position = logs with a topic', { topics: [null] }, 8],
      ['anonymous event by its indexed value', { topics: [word(5)] }, 1],
      ['topic nobody emitted', { topics: [NO_TOPIC] }, 0],
      ['address and topics combined', { address: b, topics: [PONG] }, 3],
      ['addresses and topic OR combined', { address: [a, b], topics: [[PING], [acct1]] }, 2],
      ['address that emitted, topic it did not', { address: a, topics: [null, null, word(2)] }, 0],
    ];
    for (const [name, f, count] of cases) {
      const got: RpcLog[] = await n.rpc('eth_getLogs', [{ fromBlock: '0x0', ...f }]);
      assert.equal(got.length, count, name);
      assert.deepEqual(got, reference(all, f), name);
    }
  });

  test('block ranges select exactly their blocks', async () => {
    const head = Number(await n.rpc('eth_blockNumber'));
    for (let from = 0; from <= head; from += 3) {
      for (const to of [from, from + 1, Math.min(head, from + 4), head]) {
        if (to < from) continue;
        const got: RpcLog[] = await n.rpc('eth_getLogs', [{ fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}` }]);
        assert.deepEqual(got, all.filter((l) => Number(l.blockNumber) >= from && Number(l.blockNumber) <= to), `${from}..${to}`);
      }
    }
  });

  test('blockHash selects one block; an unknown hash is `unknown block`', async () => {
    const target = all.find((l) => l.topics[0] === PONG && l.address === b.toLowerCase())!;
    const got: RpcLog[] = await n.rpc('eth_getLogs', [{ blockHash: target.blockHash }]);
    assert.deepEqual(got, all.filter((l) => l.blockHash === target.blockHash));
    assert.equal(got.length, 3);
    assert.deepEqual(await n.rpc('eth_getLogs', [{ blockHash: target.blockHash, topics: [null, null] }]), []);
    const r = await n.raw('eth_getLogs', [{ blockHash: '0x' + '12'.repeat(32) }]);
    assert.equal(r.error?.code, -32000);
    assert.equal(r.error?.message, 'unknown block');
  });

  test('invalid filters are -32602 naming the problem', async () => {
    const head = Number(await n.rpc('eth_blockNumber'));
    const past = `0x${(head + 1).toString(16)}`;
    const cases: Array<[string, unknown[], RegExp]> = [
      ['blockHash with fromBlock', [{ blockHash: all[0].blockHash, fromBlock: '0x1' }], /cannot specify both BlockHash and FromBlock\/ToBlock/],
      ['blockHash with toBlock', [{ blockHash: all[0].blockHash, toBlock: 'latest' }], /cannot specify both/],
      ['fromBlock > toBlock', [{ fromBlock: '0x3', toBlock: '0x2' }], /^invalid block range params$/],
      ['toBlock past the head', [{ fromBlock: '0x0', toBlock: past }], /^block range extends beyond current head block$/],
      ['whole range past the head', [{ fromBlock: past, toBlock: `0x${(head + 5).toString(16)}` }], /^block range extends beyond current head block$/],
      ['fromBlock past the head, toBlock latest', [{ fromBlock: past }], /^invalid block range params$/],
      ['bad fromBlock', [{ fromBlock: 'yesterday' }], /0\.fromBlock/],
      ['bad address', [{ address: '0x1234' }], /0\.address/],
      ['bad address in an array', [{ address: [a, 'nope'] }], /0\.address\[1\]/],
      ['short topic', [{ topics: ['0x1234'] }], /0\.topics\[0\]/],
      ['bad topic in an OR array', [{ topics: [null, [PING, 7]] }], /0\.topics\[1\]\[1\]/],
      ['topics not an array', [{ topics: PING }], /0\.topics/],
      ['five topic positions', [{ topics: [null, null, null, null, null] }], /exceed max topics/],
      ['filter not an object', ['latest'], /filter object/],
      ['no filter', [], /missing value for required argument 0/],
      ['bad blockHash', [{ blockHash: '0x12' }], /0\.blockHash/],
      // geth since 1.14: logs are those of mined blocks.
      ['pending toBlock', [{ fromBlock: '0x0', toBlock: 'pending' }], /^pending logs are not supported$/],
      ['pending fromBlock', [{ fromBlock: 'pending' }], /^pending logs are not supported$/],
    ];
    for (const [name, params, message] of cases) {
      const r = await n.raw('eth_getLogs', params);
      assert.equal(r.error?.code, -32602, `${name}: ${JSON.stringify(r)}`);
      assert.match(r.error!.message, message, name);
    }
  });

  test('reverted blocks leave the index; blocks mined in their place are found', async () => {
    const before = await n.rpc<RpcLog[]>('eth_getLogs', [{ fromBlock: '0x0' }]);
    const snap = n.node.history.snapshot();
    const r1 = await send(n, { to: a, data: call.pong(77) });
    assert.equal((await n.rpc<RpcLog[]>('eth_getLogs', [{ fromBlock: '0x0', topics: [PONG], address: a }])).length, 2);
    assert.ok(await n.node.history.revert(snap));
    assert.deepEqual(await n.rpc('eth_getLogs', [{ fromBlock: '0x0' }]), before);
    assert.deepEqual(await n.rpc('eth_getLogs', [{ blockHash: r1.blockHash }]).catch((e) => e.message), 'unknown block');
    const r2 = await send(n, { to: b, data: call.pong(78) });
    assert.equal(r2.blockNumber, r1.blockNumber);
    const got: RpcLog[] = await n.rpc('eth_getLogs', [{ fromBlock: r2.blockNumber, toBlock: r2.blockNumber }]);
    assert.equal(got.length, 1);
    assert.equal(got[0].address, b.toLowerCase());
    assert.equal(got[0].data, word(78));
    assert.deepEqual(await n.rpc('eth_getLogs', [{ fromBlock: '0x0', address: a, topics: [PONG] }]), reference(before, { address: a, topics: [PONG] }));
  });
});
