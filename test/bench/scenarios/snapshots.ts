// evm_snapshot / evm_revert with 10,000 funded accounts and 1,000 blocks of transfers in the
// chain: snapshot latency, revert of a small change, and one revert dropping all 1,000 blocks.
// Round trips as a client sees them. The chain is restored afterwards.

import { performance } from 'node:perf_hooks';
import { median, type Scenario } from '../harness.js';
import { DEV_ADDRESS, OTHER_DEV_ADDRESSES, recipient } from '../chain.js';

const ACCOUNTS = 10_000;
const BLOCKS = 1_000;
const hex = (n: number | bigint) => '0x' + n.toString(16);

const scenario: Scenario = {
  name: 'snapshots',
  description: 'evm_snapshot / evm_revert with 10,000 accounts and 1,000 blocks in the chain',
  async run(node) {
    const rpc = node.rpc;
    const outer = await rpc.call<string>('evm_snapshot');
    try {
      // 10,000 accounts with a balance, storage-free.
      for (let i = 0; i < ACCOUNTS; i += 500) {
        const calls = [];
        for (let j = i; j < Math.min(i + 500, ACCOUNTS); j++) calls.push({ method: 'anvil_setBalance', params: [recipient(5_000_000 + j), hex(10n ** 18n + BigInt(j))] });
        await rpc.batch(calls);
      }
      const beforeBlocks = await rpc.call<string>('evm_snapshot');
      // 1,000 blocks of one transfer each (automine), from three dev accounts.
      // Nonces are given: a batch's calls run concurrently.
      const senders = [DEV_ADDRESS, OTHER_DEV_ADDRESSES[0], OTHER_DEV_ADDRESSES[1]];
      const nonces = await Promise.all(senders.map(async (a) => Number(await rpc.call<string>('eth_getTransactionCount', [a, 'pending']))));
      const height = Number(await rpc.call<string>('eth_blockNumber'));
      for (let i = 0; i < BLOCKS; i += 50) {
        const calls = [];
        for (let j = i; j < i + 50; j++) {
          const k = j % senders.length;
          calls.push({ method: 'eth_sendTransaction', params: [{ from: senders[k], to: recipient(5_000_000 + (j % ACCOUNTS)), value: '0x1', nonce: hex(nonces[k]++), gas: '0x5208' }] });
        }
        await rpc.batch(calls);
      }
      // A node may put several of them in one block: empty blocks make up the rest.
      const mined = Number(await rpc.call<string>('eth_blockNumber')) - height;
      if (mined < BLOCKS) await rpc.call('anvil_mine', [hex(BLOCKS - mined)]);

      const rounds = node.options.quick ? 10 : 30;
      const snaps: number[] = [];
      const reverts: number[] = [];
      for (let r = 0; r < rounds; r++) {
        let t0 = performance.now();
        const id = await rpc.call<string>('evm_snapshot');
        snaps.push(performance.now() - t0);
        await rpc.call('eth_sendTransaction', [{ from: DEV_ADDRESS, to: recipient(5_000_000 + r), value: '0x2' }]);
        await rpc.call('anvil_setBalance', [recipient(5_000_001 + r), '0x5']);
        t0 = performance.now();
        if ((await rpc.call<boolean>('evm_revert', [id])) !== true) throw new Error('revert failed');
        reverts.push(performance.now() - t0);
      }
      const t0 = performance.now();
      if ((await rpc.call<boolean>('evm_revert', [beforeBlocks])) !== true) throw new Error('revert failed');
      const dropAll = performance.now() - t0;
      return {
        'evm_snapshot (median)': { value: median(snaps), unit: 'ms' },
        'evm_snapshot (max)': { value: Math.max(...snaps), unit: 'ms' },
        'evm_revert, 1 block (median)': { value: median(reverts), unit: 'ms' },
        'evm_revert, 1 block (max)': { value: Math.max(...reverts), unit: 'ms' },
        'evm_revert of 1,000 blocks': { value: dropAll, unit: 'ms' },
      };
    } finally {
      await rpc.call('evm_revert', [outer]);
    }
  },
};

export default scenario;
