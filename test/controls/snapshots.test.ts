import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADDRS, startTestNode, type TestNode } from '../support/node.js';
import { MORE_ADDRS, block, blockNumber, deploy, eventsIface, send, sleep, storageIface } from './helpers.js';

const OTHER = '0x00000000000000000000000000000000000000dd';
const balance = async (n: TestNode, a: string) => BigInt(await n.rpc('eth_getBalance', [a, 'latest']));

describe('snapshots and reset', () => {
  let n: TestNode;
  let events: string;
  before(async () => {
    n = await startTestNode();
    events = await deploy(n, 'Events');
  });
  after(() => n.close());

  test('revert restores state, blocks, receipts, logs, pool, time offset and mining settings', async () => {
    // Edits made before the snapshot, without a block, are part of it.
    await n.rpc('anvil_setBalance', [OTHER, '0x64']);
    await n.rpc('evm_setAutomine', [false]);
    const waiting = await n.rpc<string>('eth_sendTransaction', [{ from: MORE_ADDRS[0], to: OTHER, value: '0x1' }]);
    const offset = await n.rpc<number>('evm_increaseTime', [0]);
    const head = await block(n, 'latest');
    const id = await n.rpc<string>('evm_snapshot');
    assert.match(id, /^0x[0-9a-f]+$/);

    // Everything changes.
    await n.rpc('anvil_setBalance', [OTHER, '0x1000']);
    await n.rpc('anvil_setCode', [OTHER, '0x6001']);
    await n.rpc('evm_setAutomine', [true]);
    const logged = await send(n, { to: events, data: eventsIface().encodeFunctionData('pong', [7]) });
    assert.equal(logged.logs.length, 1);
    await n.rpc('evm_increaseTime', [100_000]);
    await n.rpc('anvil_mine', ['0x40']);
    await n.rpc('evm_setIntervalMining', [60_000]);
    await n.rpc('evm_setBlockGasLimit', ['0x989680']);
    assert.equal((await n.rpc<any[]>('eth_getLogs', [{ fromBlock: head.number, address: events }])).length, 1);

    assert.equal(await n.rpc('evm_revert', [id]), true);
    assert.equal(await balance(n, OTHER), 100n);
    assert.equal(await n.rpc('eth_getCode', [OTHER, 'latest']), '0x');
    assert.deepEqual(await block(n, 'latest'), head);
    assert.equal(await n.rpc('eth_getTransactionReceipt', [logged.transactionHash]), null);
    assert.equal(await n.rpc('eth_getTransactionByHash', [logged.transactionHash]), null);
    assert.deepEqual(await n.rpc('eth_getLogs', [{ fromBlock: head.number, address: events }]), []);
    assert.equal(await n.rpc('anvil_getAutomine'), false);
    assert.equal(await n.rpc('anvil_getIntervalMining'), null);
    assert.equal(await n.rpc('evm_increaseTime', [0]), offset);
    // The pool is back: the waiting transaction is mined by the next block, at the old time.
    await n.rpc('evm_mine');
    const next = await block(n, 'latest');
    assert.deepEqual(next.transactions, [waiting]);
    assert.equal(next.gasLimit, head.gasLimit);
    assert.ok(Number(next.timestamp) < Number(head.timestamp) + 50);
    await n.rpc('evm_setAutomine', [true]);
  });

  test('reverting uses up that snapshot and every later one; unknown ids answer false', async () => {
    const a = await n.rpc<string>('evm_snapshot');
    await send(n, { to: OTHER, value: '0x1' });
    const b = await n.rpc<string>('anvil_snapshot');
    await send(n, { to: OTHER, value: '0x1' });
    const c = await n.rpc<string>('evm_snapshot');
    assert.ok(BigInt(a) < BigInt(b) && BigInt(b) < BigInt(c));
    const atB = await blockNumber(n);
    assert.equal(await n.rpc('anvil_revert', [b]), true);
    assert.equal(await blockNumber(n), atB - 1);
    assert.equal(await n.rpc('evm_revert', [b]), false, 'used up');
    assert.equal(await n.rpc('evm_revert', [c]), false, 'later one used up too');
    assert.equal(await n.rpc('evm_revert', ['0x999']), false, 'unknown');
    assert.equal(await n.rpc('evm_revert', [a]), true, 'earlier one still valid');
    assert.equal(await blockNumber(n), atB - 2);
  });

  test('a revert into a run of mass-mined blocks keeps the blocks before it', async () => {
    const start = await blockNumber(n);
    await n.rpc('anvil_mine', ['0x3e8']);
    const mid = await block(n, start + 600);
    const id = await n.rpc<string>('evm_snapshot');
    await n.rpc('anvil_mine', ['0x3e8']);
    await send(n, { to: OTHER, value: '0x1' });
    assert.equal(await blockNumber(n), start + 2001);
    assert.equal(await n.rpc('evm_revert', [id]), true);
    assert.equal(await blockNumber(n), start + 1000);
    assert.deepEqual(await block(n, start + 600), mid);
    assert.equal(await block(n, start + 1001), null);
    const r = await send(n, { to: OTHER, value: '0x1' });
    assert.equal(Number(r.blockNumber), start + 1001);
    assert.equal((await block(n, start + 1001)).parentHash, (await block(n, start + 1000)).hash);
  });

  test('reset returns to a fresh genesis: balances, nonces, snapshots and impersonation are gone', async () => {
    const id = await n.rpc<string>('evm_snapshot');
    await n.rpc('anvil_impersonateAccount', [OTHER]);
    await n.rpc('anvil_setBalance', [OTHER, '0xde0b6b3a7640000']);
    const genesisBalance = await n.rpc('eth_getBalance', [ADDRS[0], '0x0']);
    assert.equal(await n.rpc('anvil_reset'), null);
    assert.equal(await blockNumber(n), 0);
    assert.equal(await n.rpc('eth_getBalance', [ADDRS[0], 'latest']), genesisBalance);
    assert.equal(await n.rpc('eth_getTransactionCount', [ADDRS[0], 'latest']), '0x0');
    assert.equal(await balance(n, OTHER), 0n);
    assert.equal(await n.rpc('eth_getCode', [events, 'latest']), '0x');
    assert.equal(await n.rpc('evm_revert', [id]), false);
    assert.match((await n.raw('eth_sendTransaction', [{ from: OTHER, to: OTHER }])).error!.message, /not impersonated/);
    // The chain works on from there; hardhat_reset does the same.
    await send(n, { to: OTHER, value: '0x1' });
    assert.equal(await blockNumber(n), 1);
    await n.rpc('hardhat_reset', []);
    assert.equal(await blockNumber(n), 0);
  });
});

describe('reverts let go of the state written since the snapshot', () => {
  let n: TestNode;
  let storage: string;
  const iface = storageIface();
  const numberAt = async (tag: string) => BigInt(await n.rpc<string>('eth_call', [{ to: storage, data: iface.encodeFunctionData('number') }, tag]));
  const setNumber = (v: number) => send(n, { to: storage, data: iface.encodeFunctionData('set', [v]) });
  before(async () => {
    n = await startTestNode({ callWorkers: 1 });
    storage = await deploy(n, 'Storage');
    await setNumber(1);
    // Calls at a settled block go to the worker once it is up.
    const workers = n.node.callWorkers!;
    for (let i = 0; i < 200 && !workers.available(); i++) await sleep(10);
    assert.ok(workers.available(), 'the call worker started');
  });
  after(() => n.close());

  test('snapshot and revert cycles (a fixture per test) keep the node store at its size; every block left reads right, on the worker too', async () => {
    const settled = await blockNumber(n);
    const size = n.node.trieNodes.size;
    for (let cycle = 0; cycle < 4; cycle++) {
      const id = await n.rpc<string>('evm_snapshot');
      const preimages = n.node.preimages.size;
      for (let i = 0; i < 12; i++) await setNumber(100 + cycle * 100 + i);
      await n.rpc('anvil_setBalance', [OTHER, '0x' + (cycle + 5).toString(16)]);
      assert.equal(await numberAt('latest'), BigInt(111 + cycle * 100));
      assert.equal(await numberAt('0x' + (settled + 6).toString(16)), BigInt(105 + cycle * 100), 'a block mined since the snapshot, on the worker');
      assert.ok(n.node.trieNodes.size > size);
      assert.equal(await n.rpc('evm_revert', [id]), true);
      assert.equal(n.node.trieNodes.size, size, `cycle ${cycle}: the nodes written since the snapshot are gone`);
      assert.equal(n.node.preimages.size, preimages, `cycle ${cycle}: and the preimages of the keys first written since`);
      assert.equal(await numberAt('latest'), 1n);
      assert.equal(await numberAt('0x' + (settled - 1).toString(16)), 0n, 'a block before the snapshot, on the worker');
      assert.equal(await balance(n, OTHER), 0n);
    }
    // The same writes again, after the rewinds: nodes equal to ones let go are written anew.
    await setNumber(100);
    assert.equal(await numberAt('latest'), 100n);
    const proof = await n.rpc<any>('eth_getProof', [storage, ['0x0'], 'latest']);
    assert.equal(BigInt(proof.storageProof[0].value), 100n);
    assert.equal(await numberAt('0x' + settled.toString(16)), 1n);
    // A state dump still names every account and slot of the state.
    const dump = await n.rpc<string>('anvil_dumpState');
    const funds = await balance(n, ADDRS[0]);
    await setNumber(5);
    await n.rpc('anvil_setBalance', [ADDRS[0], '0x9']);
    assert.equal(await n.rpc('anvil_loadState', [dump]), true);
    assert.equal(await numberAt('latest'), 100n, 'the slot came back from the dump');
    assert.equal(await balance(n, ADDRS[0]), funds);
  });

  test('a revert after a rollback below the snapshot keeps the nodes of the blocks that replaced the old ones', async () => {
    await setNumber(7);
    await setNumber(8);
    const id = await n.rpc<string>('evm_snapshot');
    const head = await blockNumber(n);
    await n.rpc('anvil_rollback', ['0x2']);
    await setNumber(70);
    await setNumber(80);
    assert.equal(await blockNumber(n), head);
    assert.equal(await n.rpc('evm_revert', [id]), true);
    // The blocks at head-1 and head are the new ones, and their state is still there.
    assert.equal(await numberAt('0x' + (head - 1).toString(16)), 70n);
    assert.equal(await numberAt('latest'), 8n, 'the live state is the snapshot\'s');
  });

  test('a reset lets go of the old chain: its nodes and key preimages are gone, and the new chain reads right, on the worker too', async () => {
    const fresh = await startTestNode();
    const genesis = { nodes: fresh.node.trieNodes.size, preimages: fresh.node.preimages.size };
    await fresh.close();
    assert.ok(n.node.trieNodes.size > genesis.nodes);
    assert.equal(await n.rpc('anvil_reset'), null);
    assert.deepEqual({ nodes: n.node.trieNodes.size, preimages: n.node.preimages.size }, genesis);
    // The same deployment again (nonce 0: the same address), then a block on top of it.
    assert.equal(await deploy(n, 'Storage'), storage);
    await setNumber(9);
    assert.equal(await numberAt('latest'), 9n);
    assert.equal(await numberAt('0x1'), 0n, 'the block of the deployment, on the worker');
    assert.equal(await n.rpc('eth_call', [{ to: storage, data: iface.encodeFunctionData('number') }, '0x0']), '0x', 'genesis has no code there');
  });
});
