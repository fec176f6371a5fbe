/**
 * Calls that large real test suites (OpenZeppelin Contracts' own Hardhat tests, run with
 * `npm run test:oz`) make, each found failing there once and kept here as a regression, driven
 * through ethers as those suites drive them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { JsonRpcProvider, type JsonRpcSigner } from 'ethers';
import { ADDRS, startTestNode, type TestNode } from '../support/node.js';

describe('calls large real suites make', () => {
  let n: TestNode;
  let provider: JsonRpcProvider;

  before(async () => {
    n = await startTestNode();
    provider = new JsonRpcProvider(n.url, 984, { staticNetwork: true, cacheTimeout: -1 });
  });
  after(async () => {
    provider?.destroy();
    await n?.close();
  });

  test("eth_getBlockByNumber takes the block number as a JSON integer (ethers' send with block.number), as anvil does", async () => {
    await n.rpc('evm_mine');
    await n.rpc('evm_mine');
    const latest = (await provider.getBlock('latest'))!;
    const raw = await provider.send('eth_getBlockByNumber', [latest.number, false]);
    assert.equal(raw.hash, latest.hash);
    assert.equal(raw.number, `0x${latest.number.toString(16)}`);
    const first = await provider.send('eth_getBlockByNumber', [1, false]);
    assert.equal(first.number, '0x1');
    assert.equal(await provider.send('eth_getBlockByNumber', [latest.number + 100, false]), null);
    assert.equal(await provider.send('eth_getBlockTransactionCountByNumber', [0]), '0x0');
  });

  test('a JSON integer that is no block number is refused with -32602', async () => {
    for (const bad of [-1, 1.5, 2 ** 60]) {
      const r = await n.raw('eth_getBlockByNumber', [bad, false]);
      assert.equal(r.error?.code, -32602, JSON.stringify(r));
    }
  });
});

// Runtime code that reverts with the 4 bytes 0xdeadbeef, and code that loops until out of gas.
const REVERTS = '0x63deadbeef6000526004601cfd';
const LOOPS = '0x5b600056';
const R = '0x00000000000000000000000000000000000dead1';
const L = '0x00000000000000000000000000000000000dead2';

describe('--throw-on-transaction-failures: a failed automined transaction is answered with an error, as the hardhat node answers', () => {
  let n: TestNode;
  let provider: JsonRpcProvider;
  let signer: JsonRpcSigner;

  before(async () => {
    n = await startTestNode({ mining: { throwOnFailures: true } });
    provider = new JsonRpcProvider(n.url, 984, { staticNetwork: true, cacheTimeout: -1 });
    signer = await provider.getSigner(0);
    await n.rpc('anvil_setCode', [R, REVERTS]);
    await n.rpc('anvil_setCode', [L, LOOPS]);
  });
  after(async () => {
    provider?.destroy();
    await n?.close();
  });

  test('a revert: the error carries the revert bytes and names the mined transaction, which is in the chain with status 0', async () => {
    const nonce = await provider.getTransactionCount(ADDRS[0]);
    const head = await provider.getBlockNumber();
    const err = await signer.sendTransaction({ to: R, gasLimit: 100_000 }).then(
      () => assert.fail('the send should fail'),
      (e: { error?: { code: number; message: string; data: string } }) => e.error!,
    );
    assert.equal(err.code, -32000);
    assert.equal(err.data, '0xdeadbeef');
    const m = /^execution reverted \(transaction (0x[0-9a-f]{64}) mined in block (\d+)\)$/.exec(err.message);
    assert.ok(m, err.message);
    assert.equal(Number(m[2]), head + 1);
    const receipt = (await provider.getTransactionReceipt(m[1]!))!;
    assert.equal(receipt.status, 0);
    assert.equal(receipt.blockNumber, head + 1);
    assert.equal(await provider.getTransactionCount(ADDRS[0]), nonce + 1);
  });

  test('out of gas and raw transactions too: the EVM error is named and the data is empty', async () => {
    const r = await n.raw('eth_sendTransaction', [{ from: ADDRS[0], to: L, gas: '0x10000' }]);
    assert.equal(r.error?.data, '0x', JSON.stringify(r));
    assert.match(r.error!.message, /^execution failed: out of gas \(transaction 0x[0-9a-f]{64} mined in block \d+\)$/);
    const raw = await signer.signTransaction({ to: R, gasLimit: 100_000, nonce: await provider.getTransactionCount(ADDRS[0]), chainId: 984, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n });
    const rr = await n.raw('eth_sendRawTransaction', [raw]);
    assert.equal(rr.error?.data, '0xdeadbeef', JSON.stringify(rr));
  });

  test('a transaction that succeeds is answered with its hash, and without automine a failing one is too (it is not mined yet)', async () => {
    const ok = await signer.sendTransaction({ to: ADDRS[1], value: 1n });
    assert.equal((await ok.wait())!.status, 1);
    await n.rpc('evm_setAutomine', [false]);
    try {
      const hash = await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: R, gas: '0x20000' }]);
      assert.match(hash, /^0x[0-9a-f]{64}$/);
      await n.rpc('evm_mine');
      assert.equal((await provider.getTransactionReceipt(hash))!.status, 0);
    } finally {
      await n.rpc('evm_setAutomine', [true]);
    }
  });

  test('without the flag a failed transaction is answered with its hash (anvil\'s way)', async () => {
    const plain = await startTestNode();
    try {
      await plain.rpc('anvil_setCode', [R, REVERTS]);
      const hash = await plain.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: R, gas: '0x20000' }]);
      assert.equal((await plain.rpc('eth_getTransactionReceipt', [hash])).status, '0x0');
    } finally {
      await plain.close();
    }
  });
});
