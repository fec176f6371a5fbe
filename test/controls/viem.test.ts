import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestClient, defineChain, http, parseEther, publicActions, walletActions, type Address, type Hex } from 'viem';
import { ADDRS, artifact, startTestNode, type TestNode } from '../support/node.js';
import { sleep } from './helpers.js';

const chain = defineChain({
  id: 984,
  name: 'node-rpc',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1'] } },
});

const dev = ADDRS[0] as Address;
const target = '0x0000000000000000000000000000000000007e57' as Address;
const whale = '0x000000000000000000000000000000000000b1b1' as Address;

function client(url: string, mode: 'anvil' | 'hardhat') {
  return createTestClient({ mode, chain, transport: http(url) }).extend(publicActions).extend(walletActions);
}

/** Every test action viem offers, in one mode. */
async function exercise(c: ReturnType<typeof client>): Promise<void> {
  const head = async () => c.getBlock({ blockTag: 'latest' });

  // Automine, the pool and dropTransaction.
  assert.equal(await c.getAutomine(), true);
  await c.setAutomine(false);
  assert.equal(await c.getAutomine(), false);
  const dropped = await c.sendTransaction({ account: dev, to: target, value: 1n, chain });
  const kept = await c.sendTransaction({ account: ADDRS[1] as Address, to: target, value: 2n, chain });
  assert.equal((await c.getTxpoolStatus()).pending, 2);
  assert.ok(JSON.stringify(await c.getTxpoolContent()).includes(dropped));
  assert.equal(Object.keys((await c.inspectTxpool()).pending).length, 2);
  await c.dropTransaction({ hash: dropped });
  const start = await c.getBlockNumber({ cacheTime: 0 });
  await c.mine({ blocks: 1 });
  assert.equal(await c.getBlockNumber({ cacheTime: 0 }), start + 1n);
  assert.deepEqual((await head()).transactions, [kept]);
  await c.setAutomine(true);

  // mine with an interval.
  const before = await head();
  await c.mine({ blocks: 5, interval: 10 });
  const after = await head();
  assert.equal(after.number, before.number + 5n);
  const first = await c.getBlock({ blockNumber: before.number + 1n });
  assert.equal(after.timestamp - first.timestamp, 40n);

  // Account cheats.
  await c.setBalance({ address: whale, value: parseEther('1000') });
  assert.equal(await c.getBalance({ address: whale }), parseEther('1000'));
  const code = artifact('Storage').deployedBytecode;
  await c.setCode({ address: target, bytecode: code });
  assert.equal(await c.getCode({ address: target }), code);
  await c.setNonce({ address: whale, nonce: 12 });
  assert.equal(await c.getTransactionCount({ address: whale }), 12);
  const slot = ('0x' + '0'.repeat(64)) as Hex;
  const value = ('0x' + '0'.repeat(62) + '2a') as Hex;
  await c.setStorageAt({ address: target, index: 0, value });
  assert.equal(await c.getStorageAt({ address: target, slot }), value);

  // Impersonation.
  await c.impersonateAccount({ address: whale });
  const sent = await c.sendTransaction({ account: whale, to: dev, value: parseEther('1'), chain });
  const r = await c.waitForTransactionReceipt({ hash: sent });
  assert.equal(r.status, 'success');
  assert.equal(r.from, whale);
  const unsigned = await c.sendUnsignedTransaction({ from: whale, to: dev, value: 1n });
  assert.equal((await c.getTransactionReceipt({ hash: unsigned })).from, whale);
  await c.stopImpersonatingAccount({ address: whale });
  await assert.rejects(c.sendTransaction({ account: whale, to: dev, value: 1n, chain }), /not impersonated/);

  // Snapshots.
  const id = await c.snapshot();
  await c.setBalance({ address: whale, value: 1n });
  await c.mine({ blocks: 3 });
  await c.revert({ id });
  assert.equal(await c.getBalance({ address: whale }), parseEther('999') - (r.gasUsed * r.effectiveGasPrice) - 1n - unsignedCost(await c.getTransactionReceipt({ hash: unsigned })));

  // Time.
  const t0 = (await head()).timestamp;
  await c.increaseTime({ seconds: 3600 });
  await c.mine({ blocks: 1 });
  // The offset moves the clock; the head may have run a few seconds ahead of it before.
  assert.ok((await head()).timestamp >= t0 + 3600n - 60n);
  const next = (await head()).timestamp + 100n;
  await c.setNextBlockTimestamp({ timestamp: next });
  await c.mine({ blocks: 1 });
  assert.equal((await head()).timestamp, next);
  await c.setBlockTimestampInterval({ interval: 7 });
  await c.mine({ blocks: 2 });
  const b2 = await head();
  assert.equal(b2.timestamp - (await c.getBlock({ blockNumber: b2.number - 1n })).timestamp, 7n);
  await c.removeBlockTimestampInterval();

  // Interval mining, observed over time (viem speaks seconds; each mode sends its own units).
  await c.setIntervalMining({ interval: 1 });
  const n0 = await c.getBlockNumber({ cacheTime: 0 });
  await sleep(2300);
  const mined = (await c.getBlockNumber({ cacheTime: 0 })) - n0;
  assert.ok(mined >= 1n && mined <= 3n, `expected about 2 interval blocks, got ${mined}`);
  await c.setIntervalMining({ interval: 0 });

  // Block settings.
  await c.setBlockGasLimit({ gasLimit: 20_000_000n });
  await c.setCoinbase({ address: target });
  await c.setNextBlockBaseFeePerGas({ baseFeePerGas: 2_000_000_000n });
  await c.setMinGasPrice({ gasPrice: 8_000_000_000n });
  await c.setLoggingEnabled(false);
  await c.setLoggingEnabled(true);
  await c.mine({ blocks: 1 });
  const shaped = await head();
  assert.equal(shaped.gasLimit, 20_000_000n);
  assert.equal(shaped.miner, target);
  assert.equal(shaped.baseFeePerGas, 2_000_000_000n);
  assert.ok((await c.getGasPrice()) >= 8_000_000_000n);

  // Dump, reset, load. viem's reset() sends forking options, which (as in anvil) need a fork
  // URL; a reset to genesis is the method without options.
  const state = await c.dumpState();
  const height = await c.getBlockNumber({ cacheTime: 0 });
  await assert.rejects(c.reset(), /jsonRpcUrl/);
  const reset = () => c.request({ method: `${c.mode}_reset` as 'anvil_reset', params: [] as never });
  await reset();
  assert.equal(await c.getBlockNumber({ cacheTime: 0 }), 0n);
  assert.equal(await c.getBalance({ address: whale }), 0n);
  await c.loadState({ state });
  assert.equal(await c.getBlockNumber({ cacheTime: 0 }), height);
  assert.equal(await c.getCode({ address: target }), code);
  assert.equal((await c.getTransactionReceipt({ hash: sent })).status, 'success');
  await reset();
}

const unsignedCost = (r: { gasUsed: bigint; effectiveGasPrice: bigint }) => r.gasUsed * r.effectiveGasPrice;

describe('viem test client', () => {
  let n: TestNode;
  before(async () => {
    n = await startTestNode();
  });
  after(() => n.close());

  test("mode 'anvil': every test action", async () => {
    await exercise(client(n.url, 'anvil'));
  });

  test("mode 'hardhat': every test action", async () => {
    await exercise(client(n.url, 'hardhat'));
  });
});
