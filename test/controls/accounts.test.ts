import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getCreateAddress } from 'ethers';
import { startTestNode, type TestNode } from '../support/node.js';
import { MORE_ADDRS, block, deploy, failure, send, storage, storageIface } from './helpers.js';

const WHALE = '0x00000000000000000000000000000000000b0b0b';
const OTHER = '0x00000000000000000000000000000000000000cc';
const ETH = 10n ** 18n;
const hexOf = (v: bigint) => '0x' + v.toString(16);

describe('account and block-setting controls', () => {
  let n: TestNode;
  before(async () => {
    n = await startTestNode();
  });
  after(() => n.close());

  test('setBalance / addBalance under anvil_ and hardhat_ names', async () => {
    assert.equal(await n.rpc('anvil_setBalance', [WHALE, hexOf(5n * ETH)]), null);
    assert.equal(BigInt(await n.rpc('eth_getBalance', [WHALE, 'latest'])), 5n * ETH);
    await n.rpc('hardhat_setBalance', [WHALE, hexOf(7n * ETH)]);
    await n.rpc('anvil_addBalance', [WHALE, hexOf(ETH)]);
    assert.equal(BigInt(await n.rpc('eth_getBalance', [WHALE, 'latest'])), 8n * ETH);
    const bad = await failure(n, 'anvil_setBalance', ['0x1234', '0x1']);
    assert.equal(bad.code, -32602);
    assert.match(bad.message, /argument 0/);
  });

  test('setCode, setStorageAt and setNonce edit the live state without a block', async () => {
    const at = '0x00000000000000000000000000000000000c0de0';
    const start = await n.rpc('eth_blockNumber');
    await n.rpc('anvil_setCode', [at, storage().deployedBytecode]);
    assert.equal(await n.rpc('eth_getCode', [at, 'latest']), storage().deployedBytecode);
    assert.equal(await n.rpc('anvil_setStorageAt', [at, '0x0', '0x2a']), true);
    const iface = storageIface();
    const number = await n.rpc('eth_call', [{ to: at, data: iface.encodeFunctionData('number') }, 'latest']);
    assert.equal(BigInt(number), 42n);
    const slot0 = '0x' + '0'.repeat(64);
    await n.rpc('hardhat_setStorageAt', [at, slot0, '0x' + '0'.repeat(62) + '07']);
    assert.equal(await n.rpc('eth_getStorageAt', [at, '0x0', 'latest']), '0x' + '0'.repeat(62) + '07');
    assert.equal(await n.rpc('eth_blockNumber'), start, 'no block was mined');

    await n.rpc('anvil_setNonce', [MORE_ADDRS[0], '0x20']);
    assert.equal(await n.rpc('eth_getTransactionCount', [MORE_ADDRS[0], 'latest']), '0x20');
    const r = await send(n, { from: MORE_ADDRS[0], to: OTHER, value: '0x1' });
    const tx = await n.rpc('eth_getTransactionByHash', [r.transactionHash]);
    assert.equal(tx.nonce, '0x20');
    await n.rpc('hardhat_setNonce', [MORE_ADDRS[0], 64]);
    assert.equal(await n.rpc('eth_getTransactionCount', [MORE_ADDRS[0], 'latest']), '0x40');
  });

  test('impersonated senders go through eth_sendTransaction unsigned; stopping makes it fail clearly', async () => {
    await n.rpc('anvil_setBalance', [WHALE, hexOf(100n * ETH)]);
    const tx = { from: WHALE, to: OTHER, value: hexOf(ETH) };
    const refused = await failure(n, 'eth_sendTransaction', [tx]);
    assert.match(refused.message, /unknown account 0x00000000000000000000000000000000000b0b0b: not a dev account and not impersonated/);

    await n.rpc('anvil_impersonateAccount', [WHALE]);
    const before = BigInt(await n.rpc('eth_getBalance', [OTHER, 'latest']));
    const hash = await n.rpc<string>('eth_sendTransaction', [tx]);
    const receipt = await n.rpc('eth_getTransactionReceipt', [hash]);
    assert.equal(receipt.status, '0x1');
    assert.equal(receipt.from, WHALE);
    assert.equal(BigInt(await n.rpc('eth_getBalance', [OTHER, 'latest'])), before + ETH);
    const mined = await n.rpc('eth_getTransactionByHash', [hash]);
    assert.equal(mined.from, WHALE);
    assert.equal(mined.hash, hash);

    // A contract deployed by the impersonated account lands at its CREATE address.
    const nonce = Number(await n.rpc('eth_getTransactionCount', [WHALE, 'latest']));
    const d = await send(n, { from: WHALE, data: storage().bytecode });
    assert.equal(d.contractAddress, getCreateAddress({ from: WHALE, nonce }).toLowerCase());

    await n.rpc('anvil_stopImpersonatingAccount', [WHALE]);
    const again = await failure(n, 'eth_sendTransaction', [tx]);
    assert.match(again.message, /not a dev account and not impersonated \(anvil_impersonateAccount\)/);

    await n.rpc('hardhat_impersonateAccount', [WHALE]);
    assert.match(await n.rpc('eth_sendTransaction', [tx]), /^0x[0-9a-f]{64}$/);
    await n.rpc('hardhat_stopImpersonatingAccount', [WHALE]);
    assert.match((await failure(n, 'eth_sendTransaction', [tx])).message, /not impersonated/);
  });

  test('an impersonated contract sends transactions and keeps its code; calls may come from contracts', async () => {
    const c = await deploy(n, 'Storage');
    const code = await n.rpc('eth_getCode', [c, 'latest']);
    const iface = storageIface();
    await n.rpc('anvil_setBalance', [c, hexOf(10n * ETH)]);
    await n.rpc('anvil_impersonateAccount', [c]);
    const nonce = BigInt(await n.rpc('eth_getTransactionCount', [c, 'latest']));

    // A plain transfer, then a call into its own code (which must still be there while it runs).
    const pay = await send(n, { from: c, to: OTHER, value: hexOf(ETH) });
    assert.equal(pay.status, '0x1');
    const self = await send(n, { from: c, to: c, data: iface.encodeFunctionData('set', [77]) });
    assert.equal(self.status, '0x1');
    assert.equal(iface.parseLog(self.logs[0])!.args.by.toLowerCase(), c.toLowerCase());
    assert.equal(BigInt(await n.rpc('eth_call', [{ to: c, data: iface.encodeFunctionData('number') }, 'latest'])), 77n);
    assert.equal(await n.rpc('eth_getCode', [c, 'latest']), code, 'the code survives sending');
    assert.equal(BigInt(await n.rpc('eth_getTransactionCount', [c, 'latest'])), nonce + 2n);
    assert.ok(BigInt(await n.rpc('eth_getBalance', [c, 'latest'])) < 9n * ETH);

    // Re-execution (tracing) accepts the same sender.
    const trace = await n.rpc('debug_traceTransaction', [self.transactionHash, { tracer: 'callTracer' }]);
    assert.equal(trace.from, c.toLowerCase());
    assert.equal(trace.to, c.toLowerCase());
    await n.rpc('anvil_stopImpersonatingAccount', [c]);

    // Calls and estimates from a contract address, as geth and anvil allow.
    const call = { from: c, to: c, data: iface.encodeFunctionData('set', [1]) };
    assert.equal(await n.rpc('eth_call', [call, 'latest']), '0x');
    assert.ok(BigInt(await n.rpc('eth_estimateGas', [call])) > 21_000n);
    assert.equal(await n.rpc('eth_getCode', [c, 'latest']), code);
  });

  test('autoImpersonateAccount and eth_sendUnsignedTransaction', async () => {
    const anyone = '0x00000000000000000000000000000000000a11ce';
    await n.rpc('anvil_setBalance', [anyone, hexOf(ETH)]);
    await n.rpc('anvil_autoImpersonateAccount', [true]);
    const hash = await n.rpc<string>('eth_sendUnsignedTransaction', [{ from: anyone, to: OTHER, value: '0x5' }]);
    assert.equal((await n.rpc('eth_getTransactionReceipt', [hash])).from, anyone);
    assert.match(await n.rpc('eth_sendTransaction', [{ from: anyone, to: OTHER, value: '0x5' }]), /^0x/);
    await n.rpc('anvil_autoImpersonateAccount', [false]);
    assert.match((await failure(n, 'eth_sendUnsignedTransaction', [{ from: anyone, to: OTHER }])).message, /not impersonated/);
  });

  test('setCoinbase, setNextBlockBaseFeePerGas, setPrevRandao shape the next blocks', async () => {
    const miner = '0x0000000000000000000000000000000000c01bba';
    await n.rpc('anvil_setCoinbase', [miner]);
    assert.equal(await n.rpc('eth_coinbase'), miner);
    await n.rpc('anvil_setNextBlockBaseFeePerGas', ['0x3b9aca000']);
    const randao = '0x' + '42'.repeat(32);
    await n.rpc('hardhat_setPrevRandao', [randao]);
    const r = await send(n, { to: OTHER, value: '0x1' });
    const b = await block(n, Number(r.blockNumber));
    assert.equal(b.miner, miner);
    assert.equal(b.baseFeePerGas, '0x3b9aca000');
    assert.equal(b.mixHash, randao);
    assert.ok(BigInt(await n.rpc('eth_getBalance', [miner, 'latest'])) > 0n, 'the coinbase got the tip');
    // The base fee override is for one block only.
    await n.rpc('evm_mine');
    assert.notEqual((await block(n, 'latest')).baseFeePerGas, '0x3b9aca000');
    await n.rpc('hardhat_setCoinbase', ['0x' + '0'.repeat(40)]);
  });

  test('setMinGasPrice raises the eth_gasPrice floor and the fee eth_sendTransaction fills in', async () => {
    const floor = 50n * 10n ** 9n;
    await n.rpc('anvil_setMinGasPrice', [hexOf(floor)]);
    assert.ok(BigInt(await n.rpc('eth_gasPrice')) >= floor);
    const r = await send(n, { to: OTHER, value: '0x1' });
    const tx = await n.rpc('eth_getTransactionByHash', [r.transactionHash]);
    assert.ok(BigInt(tx.maxFeePerGas) >= floor);
    await n.rpc('hardhat_setMinGasPrice', ['0x1a13b8600']);
    assert.equal(BigInt(await n.rpc('eth_gasPrice')) >= 7n * 10n ** 9n, true);
  });

  test('setChainId changes eth_chainId and the chain id new transactions are signed for', async () => {
    await n.rpc('anvil_setChainId', [31337]);
    assert.equal(await n.rpc('eth_chainId'), '0x7a69');
    const r = await send(n, { to: OTHER, value: '0x1' });
    assert.equal((await n.rpc('eth_getTransactionByHash', [r.transactionHash])).chainId, '0x7a69');
    await n.rpc('anvil_setChainId', ['0x3d8']);
    assert.equal(await n.rpc('eth_chainId'), '0x3d8');
  });

  test('dropTransaction / dropAllTransactions empty the pool', async () => {
    await n.rpc('evm_setAutomine', [false]);
    const a = await n.rpc<string>('eth_sendTransaction', [{ from: MORE_ADDRS[1], to: OTHER, value: '0x1' }]);
    assert.equal(await n.rpc('anvil_dropTransaction', [a]), a);
    assert.equal(await n.rpc('hardhat_dropTransaction', [a]), null, 'already gone');
    const b = await n.rpc<string>('eth_sendTransaction', [{ from: MORE_ADDRS[1], to: OTHER, value: '0x2' }]);
    const c = await n.rpc<string>('eth_sendTransaction', [{ from: MORE_ADDRS[2], to: OTHER, value: '0x3' }]);
    assert.equal(await n.rpc('anvil_dropAllTransactions'), null);
    await n.rpc('evm_mine');
    assert.deepEqual((await block(n, 'latest')).transactions, []);
    for (const h of [a, b, c]) assert.equal(await n.rpc('eth_getTransactionReceipt', [h]), null);
    await n.rpc('evm_setAutomine', [true]);
  });

  test('metadata and nodeInfo describe the chain', async () => {
    const head = await block(n, 'latest');
    const meta = await n.rpc('hardhat_metadata');
    assert.equal(meta.chainId, 984);
    assert.equal(meta.latestBlockNumber, Number(head.number));
    assert.equal(meta.latestBlockHash, head.hash);
    assert.match(meta.instanceId, /^0x[0-9a-f]{64}$/);
    assert.match(meta.clientVersion, /^anvil-node-rpc\/v/);
    assert.deepEqual(await n.rpc('anvil_metadata'), meta);
    const info = await n.rpc('anvil_nodeInfo');
    assert.equal(info.currentBlockHash, head.hash);
    assert.equal(info.currentBlockNumber, head.number);
    assert.equal(info.hardFork, 'Bpo2');
    assert.equal(info.transactionOrder, 'fees');
    assert.equal(info.environment.chainId, 984);
    assert.equal(info.environment.gasLimit, '0x1c9c380');
    assert.equal(await n.rpc('anvil_setLoggingEnabled', [false]), null);
    await n.rpc('hardhat_setLoggingEnabled', [true]);
  });
});
