/**
 * anvil_reset of every kind of state a user can observe: back to a fresh genesis with the
 * configured accounts, the clock, the next block's settings, fees, pool, impersonation and
 * snapshots cleared. The mining mode is kept, as in anvil (its miner is not part of the backend
 * it resets); installed filters are kept and hear of the dropped logs.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { encodeDeployData, encodeFunctionData, pad, toHex, type Abi } from 'viem';
import { ADDRS, GWEI, artifact, chain, hex } from './support.js';

const X = '0x00000000000000000000000000000000000000c1';
const Y = '0x00000000000000000000000000000000000000c2';
const ZERO_WORD = `0x${'00'.repeat(32)}`;
const ZERO_ADDRESS = `0x${'00'.repeat(20)}`;
const DAY = 86_400n;
const wallNow = () => BigInt(Math.floor(Date.now() / 1000));

describe('anvil_reset', () => {
  test('every kind of state goes back to a fresh chain; the mining mode stays', async () => {
    const c = await chain();
    try {
      const latest = () => c.rpc('eth_getBlockByNumber', 'latest', false);
      const events = artifact('Events');
      const deployed = await c.rpc('eth_sendTransaction', { from: ADDRS[0], data: encodeDeployData({ abi: events.abi as Abi, bytecode: events.bytecode }) });
      const e = (await c.rpc('eth_getTransactionReceipt', deployed)).contractAddress;
      const logFilter = await c.rpc('eth_newFilter', { address: e });
      const blockFilter = await c.rpc('eth_newBlockFilter');
      await c.rpc('eth_sendTransaction', { from: ADDRS[0], to: e, data: encodeFunctionData({ abi: events.abi as Abi, functionName: 'pong', args: [9n] }) });
      const [log] = await c.rpc('eth_getFilterChanges', logFilter);
      assert.equal(log.removed, false);
      await c.rpc('eth_getFilterChanges', blockFilter);
      const snap = await c.rpc('evm_snapshot');

      // Change everything.
      await c.rpc('anvil_setBalance', X, hex(10n ** 18n));
      await c.rpc('anvil_setStorageAt', X, '0x1', `0x${'22'.repeat(32)}`);
      await c.rpc('anvil_setCode', Y, '0x6001600055');
      await c.rpc('anvil_setNonce', Y, '0x9');
      await c.rpc('anvil_impersonateAccount', X);
      await c.rpc('anvil_autoImpersonateAccount', true);
      await c.rpc('evm_increaseTime', hex(100n * DAY));
      await c.rpc('anvil_setBlockTimestampInterval', 1000);
      await c.rpc('anvil_mine', 2);
      await c.rpc('evm_setNextBlockTimestamp', hex(wallNow() + 500n * DAY));
      await c.rpc('anvil_setNextBlockBaseFeePerGas', '0x7');
      await c.rpc('anvil_setCoinbase', X);
      await c.rpc('hardhat_setPrevRandao', `0x${'11'.repeat(32)}`);
      await c.rpc('evm_setBlockGasLimit', hex(40_000_000));
      await c.rpc('anvil_setMinGasPrice', hex(1000n * GWEI));
      await c.rpc('evm_setAutomine', false);
      await c.rpc('evm_setIntervalMining', 3_600_000);
      await c.rpc('eth_sendTransaction', { from: X, to: Y, value: '0x1' });
      assert.deepEqual(await c.rpc('txpool_status'), { pending: '0x1', queued: '0x0' });
      assert.equal(await c.rpc('eth_gasPrice'), hex(1000n * GWEI));

      assert.equal(await c.rpc('anvil_reset'), null);

      // The head and the accounts.
      assert.equal(await c.rpc('eth_blockNumber'), '0x0');
      assert.equal(await c.rpc('eth_getBlockByNumber', '0x1', false), null);
      assert.equal(await c.rpc('eth_getBalance', ADDRS[0], 'latest'), hex(10_000n * 10n ** 18n));
      assert.equal(await c.rpc('eth_getTransactionCount', ADDRS[0], 'latest'), '0x0');
      assert.equal(await c.rpc('eth_getBalance', X, 'latest'), '0x0');
      assert.equal(await c.rpc('eth_getStorageAt', X, '0x1', 'latest'), ZERO_WORD);
      assert.equal(await c.rpc('eth_getCode', Y, 'latest'), '0x');
      assert.equal(await c.rpc('eth_getCode', e, 'latest'), '0x');
      assert.equal(await c.rpc('eth_getTransactionCount', Y, 'latest'), '0x0');
      assert.equal(await c.rpc('eth_getTransactionReceipt', deployed), null);
      // The pool, the snapshots, the fees.
      assert.deepEqual(await c.rpc('txpool_content'), { pending: {}, queued: {} });
      assert.equal(await c.rpc('evm_revert', snap), false, 'snapshots of the old chain are gone');
      assert.equal(await c.rpc('eth_gasPrice'), hex(7n * GWEI));
      // Impersonation.
      await c.fails('eth_sendTransaction', [{ from: X, to: Y, value: '0x0' }], -32000, /^unknown account 0x0+c1: not a dev account and not impersonated/);
      await c.fails('eth_sendTransaction', [{ from: Y, to: X, value: '0x0' }], -32000, /^unknown account 0x0+c2: not a dev account and not impersonated/);
      // The mining mode is kept.
      assert.equal(await c.rpc('anvil_getAutomine'), false);
      assert.equal(await c.rpc('anvil_getIntervalMining'), 3600);
      await c.rpc('evm_setIntervalMining', 0);
      // The clock and the next block's settings.
      assert.equal(await c.rpc('evm_increaseTime', 0), 0);
      await c.rpc('evm_mine');
      const b1 = await latest();
      const t1 = BigInt(b1.timestamp);
      assert.ok(t1 - wallNow() < DAY, `${t1}: no offset and no one-shot timestamp`);
      assert.deepEqual([b1.baseFeePerGas, b1.miner, b1.mixHash, b1.gasLimit], [hex(875_000_000), ZERO_ADDRESS, ZERO_WORD, hex(30_000_000)]);
      await c.rpc('evm_mine');
      const gap = BigInt((await latest()).timestamp) - t1;
      assert.ok(gap >= 1n && gap < 100n, `${gap}: no timestamp interval`);
      // Filters stay installed: the log filter hears that the old chain's log is gone.
      assert.deepEqual(await c.rpc('eth_getFilterChanges', logFilter), [{ ...log, removed: true }]);
      assert.equal((await c.rpc<string[]>('eth_getFilterChanges', blockFilter)).at(-1), (await latest()).hash);
    } finally {
      await c.close();
    }
  });

  test('hardhat_reset is the same control', async () => {
    const c = await chain({ chainId: 31337 });
    try {
      await c.rpc('hardhat_setBalance', X, '0x5');
      await c.rpc('hardhat_mine', '0x3');
      assert.equal(await c.rpc('hardhat_reset'), null);
      assert.equal(await c.rpc('eth_blockNumber'), '0x0');
      assert.equal(await c.rpc('eth_getBalance', X, 'latest'), '0x0');
      assert.equal(await c.rpc('eth_chainId'), '0x7a69', 'the chain id stays');
      assert.equal(await c.rpc('eth_getStorageAt', X, pad(toHex(0)), 'latest'), ZERO_WORD);
    } finally {
      await c.close();
    }
  });
});
