/**
 * State on a fork: read lazily from a real upstream (a second node-rpc), shadowed by local writes,
 * never written upstream; erasures survive snapshots and reverts; bursts of reads are batched.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADDRS, startTestNode, type TestNode } from '../support/node.js';
import { HOLDER, RICH, balanceOf, forkOf, probe, send, startUpstream, storage, token, upstreamRequests, type Upstream } from './helpers.js';

const ETHER = 10n ** 18n;
const hex = (n: bigint) => '0x' + n.toString(16);
const word = (n: bigint) => '0x' + n.toString(16).padStart(64, '0');

describe('fork state', () => {
  let up: Upstream;
  let fork: TestNode;

  before(async () => {
    up = await startUpstream();
    fork = await startTestNode({ fork: forkOf(up) });
  });
  after(async () => {
    await fork?.close();
    await up?.node.close();
  });

  test('chain id, head and the fork block are the upstream’s', async () => {
    assert.equal(await fork.rpc('eth_chainId'), await up.node.rpc('eth_chainId'));
    assert.equal(BigInt(await fork.rpc('eth_blockNumber')), up.forkBlock);
    const ours = await fork.rpc('eth_getBlockByNumber', [hex(up.forkBlock), false]);
    const theirs = await up.node.rpc('eth_getBlockByNumber', [hex(up.forkBlock), false]);
    assert.deepEqual(ours, theirs);
    assert.equal((await fork.rpc('eth_getBlockByNumber', ['latest', false])).hash, theirs.hash);
  });

  test('balances, nonces, code and storage come from the upstream at the fork block', async () => {
    assert.equal(await fork.rpc('eth_getBalance', [RICH, 'latest']), '0xde0b6b3a7640000');
    assert.equal(await fork.rpc('eth_getBalance', [up.funded[3], 'latest']), hex(4000n));
    assert.equal(await fork.rpc('eth_getCode', [up.token, 'latest']), await up.node.rpc('eth_getCode', [up.token, 'latest']));
    assert.equal(await fork.rpc('eth_getStorageAt', [up.storage, '0x0', 'latest']), word(42n));
    // Dev accounts are funded anew; their nonces stay the upstream's.
    assert.equal(await fork.rpc('eth_getBalance', [ADDRS[0], 'latest']), hex(10_000n * ETHER));
    assert.equal(await fork.rpc('eth_getTransactionCount', [ADDRS[0], 'latest']), await up.node.rpc('eth_getTransactionCount', [ADDRS[0], hex(up.forkBlock)]));
    assert.equal(await fork.rpc('eth_getBalance', ['0x0000000000000000000000000000000000c0ffee', 'latest']), '0x0');
  });

  test('contract calls run on upstream state', async () => {
    assert.equal(await balanceOf(fork, up.token, HOLDER), 5000n);
    const name = await fork.rpc('eth_call', [{ to: up.token, data: token().encodeFunctionData('name') }, 'latest']);
    assert.equal(token().decodeFunctionResult('name', name)[0], 'Fork Token');
    const r = await fork.rpc('eth_call', [{ to: up.probe, data: probe().encodeFunctionData('probe', [40n, up.funded]) }, 'latest']);
    const [sum, balances] = probe().decodeFunctionResult('probe', r);
    assert.equal(sum, (40n * 41n) / 2n);
    assert.equal(balances, (1000n * 20n * 21n) / 2n);
  });

  test('writes on the fork stay on the fork', async () => {
    const upBefore = await up.node.rpc('eth_getBalance', [ADDRS[0], 'latest']);
    const upHead = await up.node.rpc('eth_blockNumber');
    const r = await send(fork, { to: up.token, data: token().encodeFunctionData('transfer', [HOLDER, 100n]) });
    assert.equal(BigInt(r.blockNumber), up.forkBlock + 1n);
    assert.equal(await balanceOf(fork, up.token, HOLDER), 5100n);
    assert.equal(await balanceOf(up.node, up.token, HOLDER), 5000n);
    await send(fork, { to: RICH, value: hex(ETHER) });
    assert.equal(await fork.rpc('eth_getBalance', [RICH, 'latest']), hex(2n * ETHER));
    assert.equal(await up.node.rpc('eth_getBalance', [RICH, 'latest']), hex(ETHER));
    assert.equal(await up.node.rpc('eth_getBalance', [ADDRS[0], 'latest']), upBefore);
    assert.equal(await up.node.rpc('eth_blockNumber'), upHead);
    // The first local block's parent is the upstream's fork block.
    const first = await fork.rpc('eth_getBlockByNumber', [hex(up.forkBlock + 1n), false]);
    const forkBlock = await up.node.rpc('eth_getBlockByNumber', [hex(up.forkBlock), false]);
    assert.equal(first.parentHash, forkBlock.hash);
  });

  test('a slot set to zero locally reads zero; reverting brings the upstream value back', async () => {
    const snap = await fork.rpc('evm_snapshot');
    await send(fork, { to: up.storage, data: storage().encodeFunctionData('set', [0n]) });
    assert.equal(await fork.rpc('eth_getStorageAt', [up.storage, '0x0', 'latest']), word(0n));
    const n = await fork.rpc('eth_call', [{ to: up.storage, data: storage().encodeFunctionData('number') }, 'latest']);
    assert.equal(BigInt(n), 0n);
    // Another write to the same contract, then back: still zero.
    await send(fork, { to: up.storage, data: storage().encodeFunctionData('setBalance', [HOLDER, 9n]) });
    assert.equal(await fork.rpc('eth_getStorageAt', [up.storage, '0x0', 'latest']), word(0n));
    // Read back from the trie (a past block's state, no live caches): the write block reads zero,
    // the block before it the upstream value.
    const headNow = BigInt(await fork.rpc('eth_blockNumber'));
    assert.equal(await fork.rpc('eth_getStorageAt', [up.storage, '0x0', hex(headNow - 1n)]), word(0n));
    assert.equal(await fork.rpc('eth_getStorageAt', [up.storage, '0x0', hex(headNow - 2n)]), word(42n));
    assert.equal(await fork.rpc('evm_revert', [snap]), true);
    assert.equal(await fork.rpc('eth_getStorageAt', [up.storage, '0x0', 'latest']), word(42n));
    const again = await fork.rpc('eth_call', [{ to: up.storage, data: storage().encodeFunctionData('number') }, 'latest']);
    assert.equal(BigInt(again), 42n);
  });

  test('a slot zeroed with anvil_setStorageAt and a mapping entry zeroed by a call stay zero', async () => {
    const snap = await fork.rpc('evm_snapshot');
    await fork.rpc('anvil_setStorageAt', [up.storage, '0x0', word(0n)]);
    assert.equal(await fork.rpc('eth_getStorageAt', [up.storage, '0x0', 'latest']), word(0n));
    await fork.rpc('evm_mine');
    const mined = await fork.rpc('eth_blockNumber');
    assert.equal(await fork.rpc('eth_getStorageAt', [up.storage, '0x0', 'latest']), word(0n));
    await send(fork, { to: up.storage, data: storage().encodeFunctionData('setBalance', [HOLDER, 0n]) });
    const b = await fork.rpc('eth_call', [{ to: up.storage, data: storage().encodeFunctionData('balances', [HOLDER]) }, 'latest']);
    assert.equal(BigInt(b), 0n);
    await fork.rpc('evm_mine');
    // From the trie (past blocks): both erasures hold.
    assert.equal(await fork.rpc('eth_getStorageAt', [up.storage, '0x0', mined]), word(0n));
    const past = await fork.rpc('eth_call', [{ to: up.storage, data: storage().encodeFunctionData('balances', [HOLDER]) }, hex(BigInt(mined) + 1n)]);
    assert.equal(BigInt(past), 0n);
    assert.equal(await fork.rpc('evm_revert', [snap]), true);
    const restored = await fork.rpc('eth_call', [{ to: up.storage, data: storage().encodeFunctionData('balances', [HOLDER]) }, 'latest']);
    assert.equal(BigInt(restored), 7n);
    assert.equal(await fork.rpc('eth_getStorageAt', [up.storage, '0x0', 'latest']), word(42n));
  });

  test('an account emptied and then deleted (EIP-161) does not come back from the upstream', async () => {
    const snap = await fork.rpc('evm_snapshot');
    const who = up.funded[0];
    await fork.rpc('anvil_setBalance', [who, '0x0']);
    // A zero-value transfer touches the empty account: it is deleted at the end of the transaction.
    await send(fork, { to: who, value: '0x0' });
    assert.equal(await fork.rpc('eth_getBalance', [who, 'latest']), '0x0');
    assert.equal(await fork.rpc('evm_revert', [snap]), true);
    assert.equal(await fork.rpc('eth_getBalance', [who, 'latest']), hex(1000n));
  });

  test('snapshot and revert drop local blocks and state', async () => {
    const head = await fork.rpc('eth_blockNumber');
    const snap = await fork.rpc('evm_snapshot');
    await send(fork, { to: up.token, data: token().encodeFunctionData('transfer', [RICH, 1n]) });
    await send(fork, { to: up.funded[5], value: '0x5' });
    assert.equal(await balanceOf(fork, up.token, RICH), 1n);
    assert.equal(await fork.rpc('evm_revert', [snap]), true);
    assert.equal(await fork.rpc('eth_blockNumber'), head);
    assert.equal(await balanceOf(fork, up.token, RICH), 0n);
    assert.equal(await fork.rpc('eth_getBalance', [up.funded[5], 'latest']), hex(6000n));
  });

  test('a revert that lets go of the upstream storage mark (written first after the snapshot) writes it again when next needed', async () => {
    const fresh = await startTestNode({ fork: forkOf(up) });
    try {
      const snap = await fresh.rpc<string>('evm_snapshot');
      await fresh.rpc('anvil_setStorageAt', [up.storage, word(1n), word(7n)]);
      assert.equal(await fresh.rpc('eth_getStorageAt', [up.storage, '0x1', 'latest']), word(7n));
      assert.equal(await fresh.rpc('evm_revert', [snap]), true);
      await fresh.rpc('anvil_setStorageAt', [up.storage, word(1n), word(9n)]);
      assert.equal(await fresh.rpc('eth_getStorageAt', [up.storage, '0x1', 'latest']), word(9n));
      assert.equal(await fresh.rpc('eth_getStorageAt', [up.storage, '0x0', 'latest']), word(42n), 'the rest still upstream');
      await fresh.rpc('evm_mine');
      assert.equal(await fresh.rpc('eth_getStorageAt', [up.storage, '0x0', 'latest']), word(42n));
    } finally {
      await fresh.close();
    }
  });

  test('impersonating an upstream account sends from it', async () => {
    await fork.rpc('anvil_impersonateAccount', [RICH]);
    await send(fork, { from: RICH, to: up.funded[7], value: '0x1' });
    assert.equal(await fork.rpc('eth_getBalance', [up.funded[7], 'latest']), hex(8001n));
    await fork.rpc('anvil_stopImpersonatingAccount', [RICH]);
  });

  test('impersonating an upstream contract sends from it; its code stays', async () => {
    const code = await up.node.rpc('eth_getCode', [up.storage, 'latest']);
    await fork.rpc('anvil_setBalance', [up.storage, hex(ETHER)]);
    await fork.rpc('anvil_impersonateAccount', [up.storage]);
    const r = await send(fork, { from: up.storage, to: up.funded[8], value: '0x2' });
    assert.equal(r.status, '0x1');
    assert.equal(await fork.rpc('eth_getBalance', [up.funded[8], 'latest']), hex(9002n));
    assert.equal(await fork.rpc('eth_getCode', [up.storage, 'latest']), code);
    assert.equal(await fork.rpc('eth_getStorageAt', [up.storage, '0x0', 'latest']), word(42n));
    await fork.rpc('anvil_stopImpersonatingAccount', [up.storage]);
  });

  test('code set here on an upstream contract is the code calls run, until reverted', async () => {
    const original = await up.node.rpc('eth_getCode', [up.storage, 'latest']);
    const returns7 = '0x600760005260206000f3'; // mstore(0, 7); return(0, 32)
    const snap = await fork.rpc('evm_snapshot');
    await fork.rpc('anvil_setCode', [up.storage, returns7]);
    assert.equal(await fork.rpc('eth_getCode', [up.storage, 'latest']), returns7);
    // Twice: the second call reads the code after the first call's changes were discarded.
    for (let i = 0; i < 2; i++) assert.equal(await fork.rpc('eth_call', [{ to: up.storage }, 'latest']), word(7n));
    assert.equal(await fork.rpc('evm_revert', [snap]), true);
    assert.equal(await fork.rpc('eth_getCode', [up.storage, 'latest']), original);
    assert.equal(await fork.rpc('eth_getStorageAt', [up.storage, '0x0', 'latest']), word(42n));
  });

  test('BLOCKHASH of upstream blocks is the upstream’s hash', async () => {
    const n = up.forkBlock - 1n;
    const r = await fork.rpc('eth_call', [{ to: up.probe, data: probe().encodeFunctionData('hashOf', [n]) }, 'latest']);
    assert.equal(r, (await up.node.rpc('eth_getBlockByNumber', [hex(n), false])).hash);
  });

  test('a local transaction can be traced', async () => {
    const r = await send(fork, { to: up.token, data: token().encodeFunctionData('transfer', [HOLDER, 1n]) });
    const trace = await fork.rpc('debug_traceTransaction', [r.transactionHash, { tracer: 'callTracer' }]);
    assert.equal(trace.to.toLowerCase(), up.token.toLowerCase());
    assert.equal(trace.type, 'CALL');
  });

  test('reads at pending on a fresh fork: the pending block is built on upstream state, and its post state answers', async () => {
    const f = await startTestNode({ fork: forkOf(up) });
    try {
      await f.rpc('evm_setAutomine', [false]);
      await f.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: up.funded[5], value: '0x7' }]);
      // Accounts nothing read yet, in one batch: fetched from the upstream while the reads take turns.
      const calls = [...up.funded.slice(6, 16).map((a) => ['eth_getBalance', [a, 'pending']]), ['eth_getBalance', [up.funded[5], 'pending']], ['eth_getStorageAt', [up.storage, '0x0', 'pending']]];
      const { json } = await f.post(JSON.stringify(calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params }))));
      const got = (json as Array<{ id: number; result: string }>).sort((a, b) => a.id - b.id).map((r) => r.result);
      const want = await Promise.all(up.funded.slice(5, 16).map((a) => up.node.rpc('eth_getBalance', [a, hex(up.forkBlock)])));
      assert.deepEqual(got.slice(0, 10), want.slice(1));
      assert.equal(got[10], hex(BigInt(want[0]) + 7n));
      assert.equal(got[11], word(42n));
      assert.equal(await f.rpc('eth_getBalance', [up.funded[5], 'latest']), want[0]);
    } finally {
      await f.close();
    }
  });

  test('reads in one call are fetched in a few batched requests', async () => {
    // A fresh fork, so nothing is cached; the probe touches 40 slots and 20 accounts.
    const f = await startTestNode({ fork: forkOf(up) });
    try {
      const before = upstreamRequests(f);
      const r = await f.rpc('eth_call', [{ to: up.probe, data: probe().encodeFunctionData('probe', [40n, up.funded]) }, 'latest']);
      const [sum] = probe().decodeFunctionResult('probe', r);
      assert.equal(sum, 820n);
      const used = upstreamRequests(f) - before;
      assert.ok(used <= 4, `${used} upstream requests for 60 reads`);
      // The same call again reads nothing upstream.
      await f.rpc('eth_call', [{ to: up.probe, data: probe().encodeFunctionData('probe', [40n, up.funded]) }, 'latest']);
      assert.equal(upstreamRequests(f) - before, used);
    } finally {
      await f.close();
    }
  });
});
