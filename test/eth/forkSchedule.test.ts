/**
 * A chain whose rules change at blocks (frontier to paris) and at times (shanghai on), as geth's
 * genesis `config` describes one: each block runs the rules of its number and timestamp, and its
 * header gains each fork's fields where geth's does (the base fee from london, the withdrawals root
 * from shanghai, blob gas and the parent beacon root from cancun, the requests hash from prague);
 * eth_config (EIP-7910) names the current, next and last timed fork with their EIP-2124 fork ids.
 */
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { Transaction, Wallet } from 'ethers';
import { KEYS, startTestNode, type TestNode } from '../support/node.js';
import { checkSchedule, forkAt, scheduleFromJson, scheduleToJson, type ForkSchedule } from '../../src/chain/core/config.js';

const T0 = 1_800_000_000n;
const SCHEDULE: ForkSchedule = {
  forks: [
    { fork: 'chainstart', block: 0n },
    { fork: 'homestead', block: 2n },
    { fork: 'spuriousDragon', block: 3n },
    { fork: 'byzantium', block: 4n },
    { fork: 'berlin', block: 5n },
    { fork: 'london', block: 6n },
    { fork: 'paris', block: 7n },
    { fork: 'shanghai', time: T0 + 100n },
    { fork: 'cancun', time: T0 + 200n },
    { fork: 'prague', time: T0 + 300n },
  ],
};

test('a schedule picks the fork of a block by its number, then its time', () => {
  assert.equal(checkSchedule(SCHEDULE), undefined);
  assert.equal(forkAt(SCHEDULE, 0n, T0), 'chainstart');
  assert.equal(forkAt(SCHEDULE, 2n, T0), 'homestead');
  assert.equal(forkAt(SCHEDULE, 6n, T0), 'london');
  assert.equal(forkAt(SCHEDULE, 100n, T0 + 99n), 'paris');
  assert.equal(forkAt(SCHEDULE, 100n, T0 + 100n), 'shanghai');
  assert.equal(forkAt(SCHEDULE, 100n, T0 + 1000n), 'prague');
  assert.deepEqual(scheduleFromJson(JSON.parse(JSON.stringify(scheduleToJson(SCHEDULE)))), SCHEDULE);
  assert.match(checkSchedule({ forks: [{ fork: 'london', block: 0n }, { fork: 'berlin', block: 2n }] })!, /berlin is listed after london/);
  assert.match(checkSchedule({ forks: [{ fork: 'london', block: 0n }, { fork: 'shanghai', block: 2n }] })!, /shanghai begins at a time/);
  assert.match(String(scheduleFromJson({ forks: [['dao', 'block:0']] })), /is not \[fork/);
});

describe('a node on a fork schedule', () => {
  let node: TestNode;
  const w = new Wallet(KEYS[0]);
  let nonce = 0;

  /** A transfer signed for the block it goes into (no chain id before spurious dragon). */
  async function transfer(protectedTx: boolean): Promise<any> {
    const raw = await w.signTransaction(Transaction.from({ type: 0, chainId: protectedTx ? 984n : 0n, nonce: nonce++, gasPrice: 10n ** 10n, gasLimit: 21_000n, to: '0x00000000000000000000000000000000000000aa', value: 1n }));
    const hash = await node.rpc('eth_sendRawTransaction', [raw]);
    return node.rpc('eth_getTransactionReceipt', [hash]);
  }

  before(async () => {
    node = await startTestNode({ chain: { hardfork: 'prague', schedule: SCHEDULE, timestamp: T0 } });
  });
  after(() => node?.close());

  /** EIP-2124's fork hash: CRC32 of the genesis hash followed by each passed fork's block, then time (uint64 big-endian). */
  function forkId(genesisHash: string, passed: bigint[]): string {
    const words = passed.map((n) => Buffer.from(n.toString(16).padStart(16, '0'), 'hex'));
    return '0x' + (crc32(Buffer.concat([Buffer.from(genesisHash.slice(2), 'hex'), ...words])) >>> 0).toString(16).padStart(8, '0');
  }
  const BLOCKS = [2n, 3n, 4n, 5n, 6n, 7n];

  test('eth_config before shanghai: the head\'s fork as current, shanghai next, prague last', async () => {
    const genesis = (await node.rpc('eth_getBlockByNumber', ['0x0', false])).hash;
    const { current, next, last } = await node.rpc('eth_config');
    assert.equal(current.activationTime, 0);
    assert.equal(current.forkId, forkId(genesis, BLOCKS));
    assert.deepEqual(current.systemContracts, {});
    assert.equal(next.activationTime, Number(T0 + 100n));
    assert.equal(next.forkId, forkId(genesis, [...BLOCKS, T0 + 100n]));
    assert.equal(next.precompiles.KZG_POINT_EVALUATION, undefined);
    assert.equal(last.activationTime, Number(T0 + 300n));
    assert.equal(last.forkId, forkId(genesis, [...BLOCKS, T0 + 100n, T0 + 200n, T0 + 300n]));
    assert.equal(last.precompiles.BLS12_G1ADD, '0x000000000000000000000000000000000000000b');
    assert.equal(last.systemContracts.DEPOSIT_CONTRACT_ADDRESS, '0x00000000219ab540356cbb839cbe05303d7705fa');
  });

  test('each block has its fork\'s header fields and receipts', async () => {
    const receipts: any[] = [];
    // Blocks 1 to 8 by number (times T0+1 … T0+8), then one block in each timed fork.
    for (let n = 1; n <= 8; n++) {
      await node.rpc('evm_setNextBlockTimestamp', [`0x${(T0 + BigInt(n)).toString(16)}`]);
      receipts.push(await transfer(n >= 3));
    }
    for (const t of [T0 + 100n, T0 + 200n, T0 + 300n]) {
      await node.rpc('evm_setNextBlockTimestamp', [`0x${t.toString(16)}`]);
      receipts.push(await transfer(true));
    }
    const blocks = await Promise.all(Array.from({ length: 12 }, (_, i) => node.rpc('eth_getBlockByNumber', [`0x${i.toString(16)}`, false])));
    const has = (f: string) => blocks.map((b) => f in b);
    const from = (first: number) => blocks.map((_, i) => i >= first);
    assert.deepEqual(has('baseFeePerGas'), from(6), 'base fee from london (block 6)');
    assert.equal(blocks[6].baseFeePerGas, '0x3b9aca00', 'the first london block starts at 1 gwei');
    assert.deepEqual(has('withdrawalsRoot'), from(9), 'withdrawals from shanghai (block 9)');
    for (const f of ['blobGasUsed', 'excessBlobGas', 'parentBeaconBlockRoot']) assert.deepEqual(has(f), from(10), `${f} from cancun (block 10)`);
    assert.equal(blocks[10].excessBlobGas, '0x0');
    assert.deepEqual(has('requestsHash'), from(11), 'requests hash from prague (block 11)');
    for (const b of blocks) assert.equal(b.difficulty, '0x0');
    // Receipts: a root before byzantium (blocks 1 to 3), a status from it.
    receipts.forEach((r, i) => {
      const block = i + 1;
      assert.equal('root' in r, block < 4, `block ${block}: root`);
      assert.equal('status' in r, block >= 4, `block ${block}: status`);
      assert.equal(r.gasUsed, '0x5208');
    });
    // Before london the whole gas price goes to the block; from london the base fee is burnt.
    assert.equal(receipts[4].effectiveGasPrice, '0x2540be400');
    assert.equal(receipts[6].effectiveGasPrice, '0x2540be400');
  });

  test('eth_config at prague: prague current from its time, nothing next', async () => {
    const genesis = (await node.rpc('eth_getBlockByNumber', ['0x0', false])).hash;
    const { current, next, last } = await node.rpc('eth_config');
    assert.equal(current.activationTime, Number(T0 + 300n));
    assert.equal(current.forkId, forkId(genesis, [...BLOCKS, T0 + 100n, T0 + 200n, T0 + 300n]));
    assert.deepEqual(current.blobSchedule, { baseFeeUpdateFraction: 5007716, max: 9, target: 6 });
    assert.equal(current.systemContracts.HISTORY_STORAGE_ADDRESS, '0x0000f90827f1c53a10cb7a02335b175320002935');
    assert.equal(next, null);
    assert.equal(last, null);
  });

  test('calls and blocks run the rules of their block: PUSH0 from shanghai', async () => {
    const at = '0x00000000000000000000000000000000000000cc';
    const code = { [at]: { code: '0x5f00' } };
    // Block 8 is paris (time T0+8), block 9 shanghai.
    const paris = await node.raw('eth_call', [{ to: at }, '0x8', code]);
    const shanghai = await node.raw('eth_call', [{ to: at }, '0x9', code]);
    assert.ok(paris.error, 'PUSH0 is invalid at a paris block');
    assert.equal(shanghai.result, '0x');
    const info = await node.rpc('anvil_nodeInfo');
    assert.equal(info.hardFork, 'Prague');
  });

  test('a state file records the schedule: it loads on the same schedule, with receipts\' roots, and is refused on one fork', async () => {
    const dump = await node.rpc('anvil_dumpState');
    const same = await startTestNode({ chain: { hardfork: 'prague', schedule: SCHEDULE, timestamp: T0 } });
    const other = await startTestNode({ chain: { hardfork: 'prague' } });
    try {
      assert.equal(await same.rpc('anvil_loadState', [dump]), true);
      for (const n of [1, 4, 11]) {
        const [a, b] = await Promise.all([node, same].map((x) => x.rpc('eth_getBlockByNumber', [`0x${n.toString(16)}`, true])));
        assert.equal(a.hash, b.hash, `block ${n}`);
        const [ra, rb] = await Promise.all([node, same].map((x) => x.rpc('eth_getTransactionReceipt', [a.transactions[0].hash])));
        assert.deepEqual(rb, ra, `block ${n}'s receipt`);
      }
      const refused = await other.raw('anvil_loadState', [dump]);
      assert.match(refused.error?.message ?? '', /follows the fork schedule .*chainstart.*, this node runs prague from genesis/);
    } finally {
      await same.close();
      await other.close();
    }
  });

  test('transaction types follow the next block\'s fork', async () => {
    const early = await startTestNode({ chain: { hardfork: 'prague', schedule: SCHEDULE, timestamp: T0 } });
    try {
      const type2 = (n: number) => w.signTransaction(Transaction.from({ type: 2, chainId: 984n, nonce: n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 1n, gasLimit: 21_000n, to: '0x00000000000000000000000000000000000000aa' }));
      const refused = await early.raw('eth_sendRawTransaction', [await type2(0)]);
      assert.equal(refused.error?.message, 'transaction type not supported: type 2', 'block 1 is frontier');
      await early.rpc('anvil_mine', ['0x5']);
      const taken = await early.raw('eth_sendRawTransaction', [await type2(0)]);
      assert.equal(taken.error, undefined, 'block 6 is london');
      assert.equal((await early.rpc('eth_getBlockByNumber', ['latest', false])).number, '0x6');
    } finally {
      await early.close();
    }
  });
});
