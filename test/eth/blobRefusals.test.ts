/**
 * Bad blob transactions over eth_sendRawTransaction, each refused with geth's words and code
 * (core/txpool/validation.go, the blob transaction decoder) and nothing left behind: wrong
 * commitment, bad proof, too many blobs, fee cap under the minimum, the wrong wrapper version for
 * the fork, a creation, no sidecar. At cancun (version 0, one proof per blob) and at the default
 * fork (version 1, cell proofs; a version-0 wrapper verified, then converted). Then BLOBHASH and the point evaluation precompile seeing the real
 * versioned hashes, in a mined transaction and in eth_call, and blobs across snapshots.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPublicClient, createWalletClient, decodeEventLog, defineChain, encodeFunctionData, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ADDRS, KEYS, artifact, startTestNode, type TestNode } from '../support/node.js';
import { blobOf, canonical, cellProofsOf, clientKzg, commitmentOf, openingOf, proofOf, signBlobTx, versionedHashOf, wrap, type BlobTxFields } from '../support/kzg.js';

const chain = defineChain({ id: 984, name: 'node-rpc', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: ['http://127.0.0.1'] } } });
const TO = '0x00000000000000000000000000000000000b10b5';
const GWEI = 10n ** 9n;

function fieldsFor(nonce: bigint, blobs: string[], more: Partial<BlobTxFields> = {}): BlobTxFields {
  return { chainId: 984n, nonce, maxPriorityFeePerGas: GWEI, maxFeePerGas: 5n * GWEI, gas: 21000n, to: TO, maxFeePerBlobGas: 10n, blobVersionedHashes: blobs.map((b) => versionedHashOf(commitmentOf(b))), ...more };
}

/** `raw` is refused with exactly `message` (-32000), and neither the pool nor the chain holds `hash`. */
async function refused(n: TestNode, raw: string, hash: string, message: string): Promise<void> {
  const r = await n.raw('eth_sendRawTransaction', [raw]);
  assert.deepEqual(r.error && { code: r.error.code, message: r.error.message }, { code: -32000, message });
  assert.equal(await n.rpc('eth_getTransactionByHash', [hash]), null);
  assert.deepEqual(await n.rpc('txpool_content'), { pending: {}, queued: {} });
  assert.equal(await n.rpc('eth_blockNumber'), '0x0');
}

describe('bad blob transactions at cancun (version-0 wrappers)', () => {
  let n: TestNode;
  const a = blobOf(11);
  const b = blobOf(12);
  before(async () => {
    n = await startTestNode({ chain: { hardfork: 'cancun' } });
  });
  after(() => n.close());

  test('a commitment that does not hash to its versioned hash', async () => {
    const { fields, hash } = signBlobTx(fieldsFor(0n, [a]), KEYS[0]);
    const want = versionedHashOf(commitmentOf(a));
    await refused(n, wrap(fields, 0, [a], [commitmentOf(b)], [proofOf(a)]), hash, `blob 0: computed hash ${versionedHashOf(commitmentOf(b))} mismatches transaction one ${want}`);
  });

  test('a proof that does not open the blob', async () => {
    const { fields, hash } = signBlobTx(fieldsFor(0n, [a]), KEYS[0]);
    await refused(n, wrap(fields, 0, [a], [commitmentOf(a)], [proofOf(b)]), hash, "KZG verification error: invalid blob proof: can't verify opening proof");
  });

  test('a blob that is not the committed one', async () => {
    const { fields, hash } = signBlobTx(fieldsFor(0n, [a]), KEYS[0]);
    await refused(n, wrap(fields, 0, [b], [commitmentOf(a)], [proofOf(a)]), hash, "KZG verification error: invalid blob proof: can't verify opening proof");
  });

  test('more blobs than the fork allows in one transaction', async () => {
    const seven = Array(7).fill(a);
    const { fields, hash } = signBlobTx(fieldsFor(0n, seven), KEYS[0]);
    await refused(n, wrap(fields, 0, seven, seven.map(commitmentOf), seven.map(proofOf)), hash, 'too many blobs in transaction: have 7, permitted 6');
  });

  test('a blob fee cap under the 1 wei minimum', async () => {
    const { fields, hash } = signBlobTx(fieldsFor(0n, [a], { maxFeePerBlobGas: 0n }), KEYS[0]);
    await refused(n, wrap(fields, 0, [a], [commitmentOf(a)], [proofOf(a)]), hash, 'transaction gas price below minimum: blob fee cap 0, minimum needed 1');
  });

  test('a version-1 wrapper before Osaka', async () => {
    const { fields, hash } = signBlobTx(fieldsFor(0n, [a]), KEYS[0]);
    await refused(n, wrap(fields, 1, [a], [commitmentOf(a)], Array(128).fill(proofOf(a))), hash, 'unexpected sidecar version, want: 0, got: 1');
  });

  test('a contract creation', async () => {
    const { fields, hash } = signBlobTx(fieldsFor(0n, [a], { to: null, gas: 100_000n }), KEYS[0]);
    await refused(n, wrap(fields, 0, [a], [commitmentOf(a)], [proofOf(a)]), hash, 'rlp: input string too short for common.Address, decoding into (types.BlobTx).To');
  });

  test('the canonical form, without its sidecar', async () => {
    const { fields, hash } = signBlobTx(fieldsFor(0n, [a]), KEYS[0]);
    await refused(n, canonical(fields), hash, 'missing sidecar in blob transaction');
  });

  test('fewer proofs than blobs', async () => {
    const { fields, hash } = signBlobTx(fieldsFor(0n, [a, b]), KEYS[0]);
    await refused(n, wrap(fields, 0, [a, b], [commitmentOf(a), commitmentOf(b)], [proofOf(a)]), hash, 'invalid number of 1 blob proofs expected 2');
  });

  test('eth_sendTransaction with versioned hashes but no blobs', async () => {
    const r = await n.raw('eth_sendTransaction', [{ from: ADDRS[0], to: TO, blobVersionedHashes: [versionedHashOf(commitmentOf(a))], maxFeePerBlobGas: '0xa' }]);
    assert.deepEqual(r.error && { code: r.error.code, message: r.error.message }, { code: -32000, message: 'missing sidecar in blob transaction' });
    assert.deepEqual(await n.rpc('txpool_content'), { pending: {}, queued: {} });
  });

  test('after all that, the good one is taken', async () => {
    const { fields, hash } = signBlobTx(fieldsFor(0n, [a, b]), KEYS[0]);
    assert.equal(await n.rpc('eth_sendRawTransaction', [wrap(fields, 0, [a, b], [commitmentOf(a), commitmentOf(b)], [proofOf(a), proofOf(b)])]), hash);
    assert.equal((await n.rpc('eth_getTransactionReceipt', [hash])).status, '0x1');
  });
});

describe('bad blob transactions at the default fork (version-1 wrappers, cell proofs)', () => {
  let n: TestNode;
  const a = blobOf(11);
  const b = blobOf(12);
  before(async () => {
    cellProofsOf(a);
    n = await startTestNode();
  });
  after(() => n.close());

  test('a version-0 wrapper at Osaka is verified before it is converted: a bad blob proof is refused', async () => {
    const { fields, hash } = signBlobTx(fieldsFor(0n, [b]), KEYS[0]);
    await refused(n, wrap(fields, 0, [b], [commitmentOf(b)], [proofOf(a)]), hash, "KZG verification error: invalid blob proof: can't verify opening proof");
  });

  test('cell proofs of another blob', async () => {
    const { fields, hash } = signBlobTx(fieldsFor(0n, [b]), KEYS[0]);
    await refused(n, wrap(fields, 1, [b], [commitmentOf(b)], cellProofsOf(a)), hash, 'KZG verification error: failed to verify cell proofs');
  });

  test('one proof per blob where 128 cell proofs are due', async () => {
    const { fields, hash } = signBlobTx(fieldsFor(0n, [a]), KEYS[0]);
    await refused(n, wrap(fields, 1, [a], [commitmentOf(a)], [proofOf(a)]), hash, 'invalid number of 1 blob proofs expected 128');
  });

  test('more than six blobs (EIP-7594), though a block takes more', async () => {
    const seven = Array(7).fill(a);
    const { fields, hash } = signBlobTx(fieldsFor(0n, seven), KEYS[0]);
    await refused(n, wrap(fields, 1, seven, seven.map(commitmentOf), seven.flatMap(cellProofsOf)), hash, 'too many blobs in transaction: have 7, permitted 6');
  });

  test('a commitment that does not hash to its versioned hash', async () => {
    const { fields, hash } = signBlobTx(fieldsFor(0n, [a]), KEYS[0]);
    await refused(n, wrap(fields, 1, [a], [commitmentOf(b)], cellProofsOf(a)), hash, `blob 0: computed hash ${versionedHashOf(commitmentOf(b))} mismatches transaction one ${versionedHashOf(commitmentOf(a))}`);
  });

  test('the good one is taken', async () => {
    const { fields, hash } = signBlobTx(fieldsFor(0n, [a]), KEYS[0]);
    assert.equal(await n.rpc('eth_sendRawTransaction', [wrap(fields, 1, [a], [commitmentOf(a)], cellProofsOf(a))]), hash);
    assert.equal((await n.rpc('eth_getTransactionReceipt', [hash])).blobGasUsed, '0x20000');
  });
});

describe('BLOBHASH and the point evaluation precompile (cancun)', () => {
  let n: TestNode;
  let reader: Hex;
  const blobs = [blobOf(21), blobOf(22)] as Hex[];
  const abi = artifact('BlobReader').abi;
  // An opening of blob 0 at z: y = p(z) and its proof.
  const z = ('0x' + '00'.repeat(31) + '2a') as Hex;
  let y: Hex;
  let proof: Hex;
  const account = privateKeyToAccount(KEYS[1]);

  before(async () => {
    [proof, y] = openingOf(blobs[0], z) as [Hex, Hex];
    n = await startTestNode({ chain: { hardfork: 'cancun' } });
    const wallet = createWalletClient({ chain, transport: http(n.url, { timeout: 300_000 }), account });
    const a = artifact('BlobReader');
    const hash = await wallet.deployContract({ abi: a.abi, bytecode: a.bytecode as Hex, chain });
    reader = (await n.rpc('eth_getTransactionReceipt', [hash])).contractAddress;
  });
  after(() => n.close());

  test('in a mined blob transaction: BLOBHASH gives each versioned hash, the precompile verifies the opening', async () => {
    const wallet = createWalletClient({ chain, transport: http(n.url, { timeout: 300_000 }), account });
    const pub = createPublicClient({ chain, transport: http(n.url) });
    const data = encodeFunctionData({ abi, functionName: 'record', args: [z, y, commitmentOf(blobs[0]) as Hex, proof, 3n] });
    const hash = await wallet.sendTransaction({ to: reader, data, blobs, kzg: clientKzg, maxFeePerBlobGas: GWEI, chain });
    const receipt = await pub.getTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    const hashes = blobs.map((b) => versionedHashOf(commitmentOf(b)));
    const ev = decodeEventLog({ abi, ...receipt.logs[0] }) as unknown as { args: { versionedHash: Hex; fieldElements: bigint; modulus: bigint } };
    assert.equal(ev.args.versionedHash, hashes[0]);
    assert.equal(ev.args.fieldElements, 4096n);
    assert.equal(ev.args.modulus, 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n);
    for (let i = 0; i < 3; i++) assert.equal(await pub.readContract({ address: reader, abi, functionName: 'seen', args: [BigInt(i)] }), i < 2 ? hashes[i] : '0x' + '00'.repeat(32));
    // The trace sees the same.
    const trace = await n.rpc('debug_traceTransaction', [hash, { tracer: 'callTracer' }]);
    assert.equal(trace.calls[0].to, '0x000000000000000000000000000000000000000a');
  });

  test('in eth_call with blobVersionedHashes; a wrong opening is refused by the precompile', async () => {
    const hashes = blobs.map((b) => versionedHashOf(commitmentOf(b)));
    const call = (yy: Hex) => n.raw('eth_call', [{ from: ADDRS[1], to: reader, blobVersionedHashes: hashes, data: encodeFunctionData({ abi, functionName: 'open', args: [z, yy, commitmentOf(blobs[0]) as Hex, proof] }) }, 'latest']);
    const ok = await call(y);
    assert.equal(ok.result!.slice(0, 66), hashes[0]);
    const bad = await call(('0x' + '00'.repeat(31) + '01') as Hex);
    assert.match(bad.error!.message, /^execution reverted: point evaluation failed/);
    const none = await n.raw('eth_call', [{ to: reader, data: encodeFunctionData({ abi, functionName: 'hashes', args: [1n] }) }, 'latest']);
    assert.equal(none.result!.slice(-64), '00'.repeat(32));
  });

  test('BLOBHASH in eth_estimateGas, debug_traceCall, trace_call and eth_simulateV1 with blobVersionedHashes', async () => {
    const hashes = blobs.map((b) => versionedHashOf(commitmentOf(b)));
    const req = { from: ADDRS[1], to: reader, blobVersionedHashes: hashes, data: encodeFunctionData({ abi, functionName: 'hashes', args: [2n] }) };
    const words = (out: string) => [out.slice(130, 194), out.slice(194, 258)].map((w) => '0x' + w);
    assert.ok(BigInt(await n.rpc('eth_estimateGas', [req])) > 21000n);
    assert.deepEqual(words((await n.rpc('debug_traceCall', [req, 'latest', { tracer: 'callTracer' }])).output), hashes);
    assert.deepEqual(words((await n.rpc('trace_call', [req, ['trace'], 'latest'])).output), hashes);
    const [block] = await n.rpc('eth_simulateV1', [{ blockStateCalls: [{ calls: [req] }] }, 'latest']);
    assert.equal(block.calls[0].status, '0x1');
    assert.deepEqual(words(block.calls[0].returnData), hashes);
  });

  test('blobs follow snapshots: a reverted block takes its blobs, the same transaction mined again brings them back', async () => {
    const snap = await n.rpc('evm_snapshot');
    const blob = blobOf(23);
    const nonce = BigInt(await n.rpc('eth_getTransactionCount', [ADDRS[0], 'latest']));
    const { fields, hash } = signBlobTx(fieldsFor(nonce, [blob]), KEYS[0]);
    const raw = wrap(fields, 0, [blob], [commitmentOf(blob)], [proofOf(blob)]);
    await n.rpc('eth_sendRawTransaction', [raw]);
    const vh = versionedHashOf(commitmentOf(blob));
    assert.equal(await n.rpc('anvil_getBlobByHash', [vh]), blob);
    assert.equal(await n.rpc('evm_revert', [snap]), true);
    assert.equal(await n.rpc('anvil_getBlobByHash', [vh]), null);
    assert.equal(await n.rpc('anvil_getBlobsByTransactionHash', [hash]), null);
    await n.rpc('eth_sendRawTransaction', [raw]);
    assert.deepEqual(await n.rpc('anvil_getBlobsByTransactionHash', [hash]), [blob]);
  });
});

describe('blob transactions in the pool (cancun)', () => {
  let n: TestNode;
  before(async () => {
    n = await startTestNode({ chain: { hardfork: 'cancun' } });
  });
  after(() => n.close());

  test('txpool views show the blob fields; a block orders equal tips by the blob fee cap', async () => {
    await n.rpc('evm_setAutomine', [false]);
    const blob = blobOf(11);
    const low = signBlobTx(fieldsFor(0n, [blob], { maxFeePerBlobGas: 5n }), KEYS[0]);
    const high = signBlobTx(fieldsFor(0n, [blob], { maxFeePerBlobGas: 50n }), KEYS[1]);
    for (const t of [low, high]) await n.rpc('eth_sendRawTransaction', [wrap(t.fields, 0, [blob], [commitmentOf(blob)], [proofOf(blob)])]);
    const plain = await n.rpc('eth_sendTransaction', [{ from: ADDRS[2], to: TO, maxPriorityFeePerGas: '0x' + GWEI.toString(16), maxFeePerGas: '0x' + (5n * GWEI).toString(16) }]);
    const content = await n.rpc('txpool_content');
    const pooled = content.pending[ADDRS[0]]['0'];
    assert.equal(pooled.type, '0x3');
    assert.equal(pooled.maxFeePerBlobGas, '0x5');
    assert.deepEqual(pooled.blobVersionedHashes, [versionedHashOf(commitmentOf(blob))]);
    assert.equal((await n.rpc('eth_getTransactionByHash', [high.hash])).maxFeePerBlobGas, '0x32');
    await n.rpc('evm_mine');
    const block = await n.rpc('eth_getBlockByNumber', ['latest', false]);
    assert.deepEqual(block.transactions, [high.hash, low.hash, plain]);
    assert.equal(block.blobGasUsed, '0x40000');
    await n.rpc('evm_setAutomine', [true]);
  });
});

describe('eth_fillTransaction and eth_signTransaction with blobs (cancun)', () => {
  let n: TestNode;
  before(async () => {
    n = await startTestNode({ chain: { hardfork: 'cancun' } });
  });
  after(() => n.close());

  test('fill computes the versioned hashes and the blob fee cap; sign refuses blobs with -32602', async () => {
    const blob = blobOf(11);
    const filled = await n.rpc('eth_fillTransaction', [{ from: ADDRS[0], to: TO, blobs: [blob] }]);
    assert.equal(filled.tx.type, '0x3');
    assert.deepEqual(filled.tx.blobVersionedHashes, [versionedHashOf(commitmentOf(blob))]);
    assert.equal(filled.tx.maxFeePerBlobGas, '0x2');
    const signed = await n.raw('eth_signTransaction', [{ from: ADDRS[0], to: TO, blobs: [blob] }]);
    assert.equal(signed.error?.code, -32602);
    assert.match(signed.error!.message, /takes no blobs/);
  });
});
