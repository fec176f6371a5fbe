/**
 * The node's secp256k1: the native binding loads here, and it answers exactly as the WebAssembly
 * fallback and ethereumjs's own curve do, for recovery, for refusals and for signatures.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { secp256k1 as noble } from '@noble/curves/secp256k1.js';
import { Mainnet, createCustomCommon } from '@ethereumjs/common';
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import { bytesToBigInt, bigIntToBytes, ecrecover as utilEcrecover, setLengthLeft } from '@ethereumjs/util';
import { makeCommon } from '../../src/chain/engine/common.js';
import { ecrecover, ecsign, nativeSecp256k1, secp256k1, wasmSecp256k1 } from '../../src/chain/engine/secp256k1.js';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const native = nativeSecp256k1();
const wasm = wasmSecp256k1();

test('the native binding loads on this machine and is the one the node uses', () => {
  assert.equal(native.name, 'native');
  assert.equal(secp256k1().name, 'native');
});

test('native and WebAssembly sign alike (RFC 6979, low s) and recover the signer', () => {
  for (let i = 0; i < 200; i++) {
    const key = noble.utils.randomSecretKey();
    const hash = randomBytes(32);
    const a = native.sign(hash, key);
    const b = wasm.sign(hash, key);
    assert.deepEqual(a, b);
    assert.ok(a[0] === 0 || a[0] === 1);
    assert.ok(bytesToBigInt(a.subarray(33)) <= N / 2n, 'low s');
    const pub = noble.getPublicKey(key, false);
    const sig = a.subarray(1);
    assert.deepEqual(native.recover(hash, sig, a[0] as 0 | 1), pub);
    assert.deepEqual(wasm.recover(hash, sig, a[0] as 0 | 1), pub);
  }
});

test('signatures that recover to no key are refused alike', () => {
  const hash = randomBytes(32);
  const good = native.sign(hash, noble.utils.randomSecretKey()).subarray(1);
  const r = good.subarray(0, 32);
  const s = good.subarray(32);
  const sig = (a: Uint8Array, b: Uint8Array) => new Uint8Array([...setLengthLeft(a, 32), ...setLengthLeft(b, 32)]);
  // An x that is no point's on the curve: 5 (x³ + 7 = 132 is not a square mod p).
  const bad = [sig(new Uint8Array(32), s), sig(r, new Uint8Array(32)), sig(bigIntToBytes(N), s), sig(r, bigIntToBytes(N + 1n)), sig(bigIntToBytes(5n), s), new Uint8Array(64).fill(0xff)];
  for (const b of bad) {
    for (const recid of [0, 1] as const) {
      assert.equal(native.recover(hash, b, recid), undefined);
      assert.equal(wasm.recover(hash, b, recid), undefined);
    }
  }
});

test("ecrecover keeps @ethereumjs/util's contract: the key without its prefix, a throw for a bad signature", () => {
  for (let i = 0; i < 50; i++) {
    const hash = randomBytes(32);
    const sig = native.sign(hash, noble.utils.randomSecretKey());
    const [r, s, v] = [sig.subarray(1, 33), sig.subarray(33), BigInt(sig[0]) + 27n];
    assert.deepEqual(ecrecover(hash, v, r, s), utilEcrecover(hash, v, r, s));
    assert.deepEqual(ecrecover(hash, BigInt(sig[0]) + 35n + 2n * 984n, r, s, 984n), utilEcrecover(hash, BigInt(sig[0]) + 35n + 2n * 984n, r, s, 984n));
  }
  const hash = randomBytes(32);
  assert.throws(() => ecrecover(hash, 27n, new Uint8Array(32), new Uint8Array(32)), /could not be recovered/);
  assert.throws(() => ecrecover(hash, 29n, new Uint8Array(32), new Uint8Array(32)), /v value/);
});

test("transactions signed on the node's Common are byte for byte those ethereumjs signs by default", () => {
  const ours = makeCommon(984n, 'prague');
  const plain = createCustomCommon({ chainId: 984 }, Mainnet, { hardfork: 'prague' });
  for (let i = 0; i < 20; i++) {
    const key = noble.utils.randomSecretKey();
    const fields = { nonce: BigInt(i), gasLimit: 21_000n, to: `0x${'11'.repeat(20)}` as const, value: 1n, data: randomBytes(i) };
    const a = createFeeMarket1559Tx({ ...fields, maxFeePerGas: 9n, maxPriorityFeePerGas: 1n, chainId: 984n }, { common: ours }).sign(key);
    const b = createFeeMarket1559Tx({ ...fields, maxFeePerGas: 9n, maxPriorityFeePerGas: 1n, chainId: 984n }, { common: plain }).sign(key);
    assert.deepEqual(a.serialize(), b.serialize());
    assert.deepEqual(a.getSenderAddress().bytes, b.getSenderAddress().bytes);
    const c = createLegacyTx({ ...fields, gasPrice: 9n }, { common: ours }).sign(key);
    const d = createLegacyTx({ ...fields, gasPrice: 9n }, { common: plain }).sign(key);
    assert.deepEqual(c.serialize(), d.serialize());
  }
});

test('ecsign with extra entropy signs through noble: a valid signature, not the deterministic one', () => {
  const key = noble.utils.randomSecretKey();
  const hash = randomBytes(32);
  const random = ecsign(hash, key, { extraEntropy: true, format: 'recovered', prehash: false });
  const fixed = ecsign(hash, key, { extraEntropy: false, format: 'recovered', prehash: false });
  assert.deepEqual(fixed, native.sign(hash, key));
  assert.notDeepEqual(random, fixed);
  assert.deepEqual(native.recover(hash, random.subarray(1), random[0] as 0 | 1), noble.getPublicKey(key, false));
});
