// Deploy the Token fixture, then N sequential ERC20 transfers, each
// eth_sendRawTransaction followed by eth_getTransactionReceipt (polled until
// mined). All transactions are signed up front so signing is not measured.

import { performance } from 'node:perf_hooks';
import { median, percentile, type Scenario } from '../harness.js';
import { chooseFees, devWallet, ensureToken, pendingNonce, recipient, waitReceipt } from '../chain.js';

let round = 0;

const scenario: Scenario = {
  name: 'transfers',
  description: 'deploy Token, then 500 sequential ERC20 transfers (sendRawTransaction + receipt)',
  async run(node) {
    const count = node.options.quick ? 100 : 500;
    const token = await ensureToken(node);
    const wallet = devWallet();
    const fees = await chooseFees(node.rpc);
    const nonce0 = await pendingNonce(node.rpc, wallet.address);
    const base = round++ * 1_000_000;

    const raws: string[] = [];
    for (let i = 0; i < count; i++) {
      raws.push(
        await wallet.signTransaction({
          type: 2,
          chainId: node.chainId,
          nonce: nonce0 + i,
          gasLimit: 60_000n,
          to: token.address,
          value: 0n,
          data: token.iface.encodeFunctionData('transfer', [recipient(base + i), 1000n + BigInt(i)]),
          ...fees,
        }),
      );
    }

    const lat = new Float64Array(count);
    let failed = 0;
    let polls = 0;
    const onPoll = () => {
      polls++;
    };
    const t0 = performance.now();
    for (let i = 0; i < count; i++) {
      const s = performance.now();
      const hash = await node.rpc.call<string>('eth_sendRawTransaction', [raws[i]]);
      const receipt = await waitReceipt(node.rpc, hash, 30_000, onPoll);
      lat[i] = performance.now() - s;
      if (receipt.status !== '0x1') failed++;
    }
    const elapsed = performance.now() - t0;
    if (failed > 0) throw new Error(`${failed} of ${count} transfers reverted`);

    // Spot-check the effect of the last transfer.
    const last = count - 1;
    const bal = await node.rpc.call<string>('eth_call', [
      { to: token.address, data: token.iface.encodeFunctionData('balanceOf', [recipient(base + last)]) },
      'latest',
    ]);
    if (BigInt(bal) !== 1000n + BigInt(last)) throw new Error(`unexpected recipient balance ${bal}`);

    return {
      throughput: { value: (count * 1000) / elapsed, unit: 'tx/s' },
      'latency p50': { value: median(lat), unit: 'ms' },
      'latency p99': { value: percentile(lat, 99), unit: 'ms' },
      'receipt polls': { value: polls / count, unit: 'per tx' },
    };
  },
};

export default scenario;
