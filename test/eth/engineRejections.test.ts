/**
 * The engine adapter (src/chain/exec/rejections.ts): each refusal kind is decided from the facts before
 * ethereumjs runs, and for each one ethereumjs itself, run without the check, refuses the same
 * transaction (so an upstream change in what it accepts fails here, not silently in the node).
 * Then the kinds the node acts on, through the node: a transaction that no longer fits the block
 * waits for the next one; estimateGas treats too little gas as a failed attempt.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createBlock } from '@ethereumjs/block';
import { createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { Account, createAddressFromPrivateKey, createAddressFromString, hexToBytes } from '@ethereumjs/util';
import { runTx } from '@ethereumjs/vm';
import { Wallet } from 'ethers';
import { makeCommon, txCommon } from '../../src/chain/engine/common.js';
import { createEngine } from '../../src/chain/engine/engine.js';
import { TxRejected, feesOf, rejectionOf, runChecked, type RejectionKind, type RunChecks } from '../../src/chain/exec/rejections.js';
import { ADDRS, KEYS, startTestNode } from '../support/node.js';

const KEY = hexToBytes(`0x${'11'.repeat(32)}`);
const FROM = createAddressFromPrivateKey(KEY);
const TO = createAddressFromString(ADDRS[2]);

async function setup() {
  const common = makeCommon(984n, 'prague');
  const engine = await createEngine(common, { getBlock: async () => ({ hash: () => new Uint8Array(32) }), putBlock: async () => {}, shallowCopy() { return this; } } as never);
  await engine.state.putAccount(FROM, new Account(5n, 10n ** 18n));
  const block = createBlock({ header: { number: 1n, gasLimit: 30_000_000n, baseFeePerGas: 1_000_000_000n, excessBlobGas: 0n, timestamp: 1n } }, { common, setHardfork: false });
  const tx = (o: Record<string, bigint | string> = {}): TypedTransaction =>
    createFeeMarket1559Tx({ nonce: 5n, to: TO.toString(), value: 1n, gasLimit: 21_000n, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1n, ...o }, { common }).sign(KEY);
  return { ...engine, block, tx, common };
}

describe('engine rejections: decided by kind, and ethereumjs agrees', () => {
  const cases: Array<[RejectionKind, (s: Awaited<ReturnType<typeof setup>>) => TypedTransaction, Partial<RunChecks>?]> = [
    ['intrinsic-gas', (s) => s.tx({ gasLimit: 20_999n })],
    ['floor-data-gas', (s) => s.tx({ gasLimit: 24_000n, data: '0x' + 'ff'.repeat(100) })],
    ['fee-cap-below-base-fee', (s) => s.tx({ maxFeePerGas: 999_999_999n })],
    ['insufficient-funds', (s) => s.tx({ value: 10n ** 18n })],
    ['nonce-too-low', (s) => s.tx({ nonce: 4n })],
    ['nonce-too-high', (s) => s.tx({ nonce: 6n })],
  ];
  for (const [kind, make] of cases) {
    test(kind, async () => {
      const s = await setup();
      const t = make(s);
      const checks = feesOf(s.block.header);
      const rejected = await rejectionOf(s.vm, t, FROM, checks);
      assert.ok(rejected instanceof TxRejected);
      assert.equal(rejected.kind, kind);
      await assert.rejects(runChecked(s.vm, t, FROM, checks, () => runTx(s.vm, { tx: t, block: s.block })), (e) => e instanceof TxRejected && e.kind === kind);
      // ethereumjs alone refuses it too.
      await assert.rejects(runTx(s.vm, { tx: t, block: s.block }));
    });
  }

  test('gas-limit-too-high (Osaka on): over 2^24 is refused, as ethereumjs refuses to even build such a transaction; calls skip it', async () => {
    const common = makeCommon(984n, 'osaka');
    const engine = await createEngine(common, { getBlock: async () => ({ hash: () => new Uint8Array(32) }), putBlock: async () => {}, shallowCopy() { return this; } } as never);
    await engine.state.putAccount(FROM, new Account(5n, 10n ** 18n));
    const block = createBlock({ header: { number: 1n, gasLimit: 30_000_000n, baseFeePerGas: 1_000_000_000n, excessBlobGas: 0n, timestamp: 1n } }, { common, setHardfork: false });
    const fields = { nonce: 5n, to: TO.toString(), value: 1n, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1n };
    // The node builds transaction objects with txCommon (request.ts, admission.ts).
    const over = createFeeMarket1559Tx({ ...fields, gasLimit: (1n << 24n) + 1n }, { common: txCommon(common) }).sign(KEY);
    const checks = feesOf(block.header);
    const rejected = await rejectionOf(engine.vm, over, FROM, checks);
    assert.equal(rejected?.kind, 'gas-limit-too-high');
    assert.equal(rejected?.message, 'transaction gas limit too high (cap: 16777216, tx: 16777217)');
    assert.equal(await rejectionOf(engine.vm, over, FROM, { ...checks, skipGasCap: true }), undefined);
    assert.throws(() => createFeeMarket1559Tx({ ...fields, gasLimit: (1n << 24n) + 1n }, { common }));
    const at = createFeeMarket1559Tx({ ...fields, gasLimit: 1n << 24n }, { common }).sign(KEY);
    assert.equal(await rejectionOf(engine.vm, at, FROM, checks), undefined);
  });

  test('block-full: more gas than is left in the block', async () => {
    const s = await setup();
    const rejected = await rejectionOf(s.vm, s.tx({ gasLimit: 100_000n }), FROM, { ...feesOf(s.block.header), gasLeft: 99_999n });
    assert.equal(rejected?.kind, 'block-full');
    assert.equal(await rejectionOf(s.vm, s.tx({ gasLimit: 100_000n }), FROM, { ...feesOf(s.block.header), gasLeft: 100_000n }), undefined);
  });

  test('a runnable transaction passes the checks and runs; eth_call-style checks skip nonce and balance', async () => {
    const s = await setup();
    const r = await runChecked(s.vm, s.tx(), FROM, feesOf(s.block.header), () => runTx(s.vm, { tx: s.tx(), block: s.block }));
    assert.equal(r.totalGasSpent, 21_000n);
    assert.equal(await rejectionOf(s.vm, s.tx({ nonce: 9n, value: 10n ** 20n }), FROM, { ...feesOf(s.block.header), skipNonce: true, skipBalance: true }), undefined);
  });

  test('legacy gas price below the base fee, and what ethereumjs refuses unforeseen is kind engine', async () => {
    const s = await setup();
    const legacy = createLegacyTx({ nonce: 5n, to: TO.toString(), gasLimit: 21_000n, gasPrice: 1n }, { common: s.common }).sign(KEY);
    assert.equal((await rejectionOf(s.vm, legacy, FROM, feesOf(s.block.header)))?.kind, 'fee-cap-below-base-fee');
    await assert.rejects(
      runChecked(s.vm, s.tx(), FROM, feesOf(s.block.header), () => Promise.reject(new Error('something new (tx type=2 hash=0x12)\nmore'))),
      (e) => e instanceof TxRejected && e.kind === 'engine' && e.message === 'something new',
    );
  });
});

describe('engine rejections the node acts on', () => {
  test('a transaction that no longer fits the block waits in the pool for the next block', async () => {
    const n = await startTestNode();
    try {
      await n.rpc('evm_setAutomine', [false]);
      await n.rpc('evm_setBlockGasLimit', ['0x' + (60_000).toString(16)]);
      const w = new Wallet(KEYS[1]);
      const send = async (nonce: number) =>
        n.rpc('eth_sendRawTransaction', [await w.signTransaction({ to: ADDRS[2], value: 1n, gasLimit: 40_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, chainId: 984n, type: 2, nonce })]);
      const a = await send(0);
      const b = await send(1);
      await n.rpc('evm_mine');
      const first = await n.rpc('eth_getBlockByNumber', ['latest', false]);
      assert.deepEqual(first.transactions, [a]);
      assert.equal((await n.rpc('txpool_status')).pending, '0x1');
      await n.rpc('evm_mine');
      assert.deepEqual((await n.rpc('eth_getBlockByNumber', ['latest', false])).transactions, [b]);
    } finally {
      await n.close();
    }
  });

  test('estimateGas searches past limits below intrinsic and floor gas', async () => {
    const n = await startTestNode();
    try {
      const data = '0x' + 'ff'.repeat(200);
      const gas = BigInt(await n.rpc('eth_estimateGas', [{ from: ADDRS[0], to: ADDRS[2], data }]));
      // EIP-7623: 200 nonzero bytes cost at least 21000 + 200 * 4 * 10.
      assert.equal(gas, 29_000n);
    } finally {
      await n.close();
    }
  });
});
