/**
 * Blob transactions (EIP-4844) end to end through real clients, at cancun and prague against
 * anvil at the same fork (the same signed transactions: receipts, fees, blob gas and blob base
 * fees must match), and at the default fork (Osaka's cell proofs, EIP-7594, against anvil too;
 * the version-0 wrapper ethers 6 and viem build with a local key converted as geth converts it):
 * sent with viem and ethers 6, mined, served, and their blobs fetched back byte for byte through anvil_getBlobByHash,
 * anvil_getBlobsByTransactionHash and the beacon routes. The other refusals are in blobRefusals.test.ts.
 */
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { Wallet, JsonRpcProvider } from 'ethers';
import { createPublicClient, createWalletClient, defineChain, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ADDRS, KEYS, startTestNode, type TestNode } from '../support/node.js';
import { startAnvil, type Anvil } from '../support/anvil.js';
import { blobOf, cellProofsOf, clientKzg, commitmentOf, proofOf, signBlobTx, versionedHashOf, wrap } from '../support/kzg.js';

interface Rpc {
  url: string;
  rpc<T = any>(method: string, params?: unknown[]): Promise<T>;
  raw(method: string, params?: unknown[]): Promise<{ result?: any; error?: { code: number; message: string; data?: unknown } }>;
}

const chain = defineChain({ id: 984, name: 'node-rpc', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: ['http://127.0.0.1'] } } });
const TO = '0x00000000000000000000000000000000000b10b5';
/** Dev accounts 3 and 4 of the standard mnemonic. */
const KEY3 = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';
const KEY4 = '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a';
const GWEI = 10n ** 9n;

/** A mined transaction's receipt, as the fields both nodes must agree on. */
async function receiptOf(n: Rpc, hash: string): Promise<Record<string, unknown>> {
  let r: any;
  for (let i = 0; i < 200 && !r; i++) {
    r = await n.rpc('eth_getTransactionReceipt', [hash]);
    if (!r) await new Promise((res) => setTimeout(res, 25));
  }
  assert.ok(r, `no receipt for ${hash}`);
  const b = await n.rpc('eth_getBlockByNumber', [r.blockNumber, false]);
  const t = await n.rpc('eth_getTransactionByHash', [hash]);
  return {
    type: r.type, status: r.status, gasUsed: r.gasUsed, cumulativeGasUsed: r.cumulativeGasUsed, effectiveGasPrice: r.effectiveGasPrice,
    blobGasUsed: r.blobGasUsed, blobGasPrice: r.blobGasPrice, from: r.from, to: r.to, blockNumber: r.blockNumber,
    blockBlobGasUsed: b.blobGasUsed, excessBlobGas: b.excessBlobGas, baseFeePerGas: b.baseFeePerGas,
    txType: t.type, maxFeePerBlobGas: t.maxFeePerBlobGas, blobVersionedHashes: t.blobVersionedHashes,
  };
}

/** EIP-4844's fake_exponential: factor · e^(numerator / denominator), in integers. */
function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  let i = 1n;
  let output = 0n;
  let acc = factor * denominator;
  while (acc > 0n) {
    output += acc;
    acc = (acc * numerator) / (denominator * i);
    i++;
  }
  return output / denominator;
}

/** The transaction `hash` in an anvil_dumpState answer (gzip-compressed JSON as hex). */
function dumpedTx(dump: string, hash: string): any {
  const blocks: any[] = JSON.parse(gunzipSync(Buffer.from(dump.slice(2), 'hex')).toString('utf8')).blocks;
  const found = blocks.flatMap((b) => b.transactions.map((t: any) => t.transaction)).find((t: any) => t.hash === hash);
  assert.ok(found, `${hash} in the dump`);
  return found;
}

async function beacon(n: Rpc, path: string): Promise<{ status: number; json: any }> {
  const res = await fetch(n.url + path);
  return { status: res.status, json: await res.json() };
}

/** Every fetch route gives the blobs of `hash` (mined in `blockNumber`) back byte for byte. */
async function blobsComeBack(n: Rpc, hash: string, blobs: string[], sidecars: 'served' | 'gone'): Promise<void> {
  const t = await n.rpc('eth_getTransactionByHash', [hash]);
  const hashes: string[] = t.blobVersionedHashes;
  assert.deepEqual(await n.rpc('anvil_getBlobsByTransactionHash', [hash]), blobs);
  for (let i = 0; i < blobs.length; i++) assert.equal(await n.rpc('anvil_getBlobByHash', [hashes[i]]), blobs[i]);
  const number = Number(t.blockNumber);
  const all = await beacon(n, `/eth/v1/beacon/blobs/${number}`);
  assert.equal(all.status, 200);
  assert.deepEqual(all.json, { execution_optimistic: false, finalized: false, data: blobs });
  const one = await beacon(n, `/eth/v1/beacon/blobs/${t.blockHash}?versioned_hashes=${hashes[hashes.length - 1]}`);
  assert.deepEqual(one.json.data, [blobs[blobs.length - 1]]);
  const side = await beacon(n, `/eth/v1/beacon/blob_sidecars/${number}`);
  if (sidecars === 'gone') {
    assert.equal(side.status, 410);
    return;
  }
  assert.equal(side.status, 200);
  assert.deepEqual(
    side.json.data.map((s: any) => [s.index, s.blob, s.kzg_commitment, s.kzg_proof]),
    blobs.map((b, i) => [String(i), b, commitmentOf(b), proofOf(b)]),
  );
}

for (const fork of ['cancun', 'prague'] as const) {
  describe(`blob transactions at ${fork}, against anvil --hardfork ${fork}`, () => {
    let ours: TestNode;
    let anvil: Anvil;
    let nodes: Rpc[];

    before(async () => {
      // A zero base fee on both: anvil's block 1 keeps the genesis base fee where EIP-1559 (and this
      // node) lowers it, which would make every later fee differ for reasons unrelated to blobs.
      [ours, anvil] = await Promise.all([startTestNode({ chain: { hardfork: fork, baseFee: 0n } }), startAnvil(['--hardfork', fork, '--base-fee', '0'])]);
      nodes = [ours, anvil];
    });
    after(async () => {
      await ours?.close();
      await anvil?.close();
    });

    test('viem (sendTransaction with blobs and kzg): the same receipt, fees and blob gas as anvil; the blobs come back', async () => {
      const blobs = [blobOf(1), blobOf(2)] as Hex[];
      const results = [];
      for (const n of nodes) {
        const wallet = createWalletClient({ chain, transport: http(n.url, { timeout: 300_000 }), account: privateKeyToAccount(KEYS[0]) });
        const hash = await wallet.sendTransaction({ to: TO, blobs, kzg: clientKzg, maxFeePerBlobGas: 10n * GWEI, maxFeePerGas: 3n * GWEI, maxPriorityFeePerGas: GWEI, gas: 21000n, chain });
        results.push({ hash, receipt: await receiptOf(n, hash) });
      }
      assert.equal(results[0].hash, results[1].hash);
      assert.deepEqual(results[0].receipt, results[1].receipt);
      assert.equal(results[0].receipt.blobGasUsed, '0x40000');
      assert.deepEqual(results[0].receipt.blobVersionedHashes, blobs.map((b) => versionedHashOf(commitmentOf(b))));
      await blobsComeBack(ours, results[0].hash, blobs, 'served');
      // anvil serves the same blobs by hash and by transaction.
      assert.deepEqual(await anvil.rpc('anvil_getBlobsByTransactionHash', [results[0].hash]), blobs);
      assert.equal(await ours.rpc('eth_blobBaseFee'), await anvil.rpc('eth_blobBaseFee'));
    });

    test('ethers 6 (a Wallet with blobs and kzg): the same receipt and fees as anvil; the blobs come back', async () => {
      const blobs = [blobOf(3)];
      const results = [];
      for (const n of nodes) {
        const signer = new Wallet(KEYS[1], new JsonRpcProvider(n.url, 984, { staticNetwork: true }));
        const sent = await signer.sendTransaction({ type: 3, to: TO, blobs, kzg: clientKzg, maxFeePerBlobGas: 5n * GWEI, maxFeePerGas: 4n * GWEI, maxPriorityFeePerGas: 2n * GWEI, gasLimit: 21000n });
        const mined = await sent.wait();
        assert.equal(mined!.status, 1);
        assert.equal(mined!.blobGasUsed, 131072n);
        results.push({ hash: sent.hash, receipt: await receiptOf(n, sent.hash) });
      }
      assert.deepEqual(results[0].receipt, results[1].receipt);
      await blobsComeBack(ours, results[0].hash, blobs, 'served');
    });

    test('blocks full of blobs: receipts and blob gas as anvil, the block maximum holds, the blob base fee rises by the schedule', async () => {
      const blob = blobOf(4);
      const [max, target, fraction] = fork === 'cancun' ? [6, 3, 3338477n] : [9, 6, 5007716n];
      const perTx = max / 3;
      const commitment = commitmentOf(blob);
      const vh = versionedHashOf(commitment);
      let nonce = BigInt(await ours.rpc('eth_getTransactionCount', [ADDRS[2], 'latest']));
      const send = async (maxFeePerBlobGas: bigint, count: number) => {
        const { fields, hash } = signBlobTx({ chainId: 984n, nonce: nonce++, maxPriorityFeePerGas: GWEI, maxFeePerGas: 5n * GWEI, gas: 21000n, to: TO, maxFeePerBlobGas, blobVersionedHashes: Array(count).fill(vh) }, KEYS[2]);
        const raw = wrap(fields, 0, Array(count).fill(blob), Array(count).fill(commitment), Array(count).fill(proofOf(blob)));
        for (const n of nodes) assert.equal(await n.rpc('eth_sendRawTransaction', [raw]), hash);
        return hash;
      };
      for (const n of nodes) await n.rpc('evm_setAutomine', [false]);
      // EIP-4844's excess blob gas and blob base fee, block by block. anvil 1.7.1 keeps its
      // excessBlobGas at 0 whatever its blocks carry, so here the spec's formula is the reference.
      let excess = BigInt((await ours.rpc('eth_getBlockByNumber', ['latest', false])).excessBlobGas);
      let parentUsed = BigInt((await ours.rpc('eth_getBlockByNumber', ['latest', false])).blobGasUsed);
      const ourFees: bigint[] = [];
      // Four transactions of a third of the maximum each: three fill a block, the fourth waits.
      for (let block = 0; block < 10; block++) {
        for (let i = 0; i < (block === 0 ? 4 : 3); i++) await send(100n, perTx);
        const blocks = [];
        for (const n of nodes) {
          await n.rpc('evm_mine');
          const b = await n.rpc('eth_getBlockByNumber', ['latest', false]);
          blocks.push({ blobGasUsed: b.blobGasUsed, txs: b.transactions.length, baseFeePerGas: b.baseFeePerGas, gasUsed: b.gasUsed, excessBlobGas: b.excessBlobGas });
        }
        excess = excess + parentUsed > BigInt(target * 131072) ? excess + parentUsed - BigInt(target * 131072) : 0n;
        parentUsed = BigInt(max * 131072);
        assert.equal(blocks[0].excessBlobGas, '0x' + excess.toString(16), `block ${block}`);
        assert.deepEqual({ ...blocks[0], excessBlobGas: 0 }, { ...blocks[1], excessBlobGas: 0 }, `block ${block}`);
        assert.equal(blocks[0].blobGasUsed, '0x' + (131072 * max).toString(16));
        assert.equal(blocks[0].txs, 3);
        ourFees.push(BigInt(await ours.rpc('eth_blobBaseFee')));
        const next = excess + parentUsed - BigInt(target * 131072);
        assert.equal(ourFees[ourFees.length - 1], fakeExponential(1n, next, fraction), `blob base fee after block ${block}`);
      }
      for (const n of nodes) await n.rpc('evm_mine');
      const receipts = await Promise.all(nodes.map(async (n) => receiptOf(n, (await n.rpc('eth_getBlockByNumber', ['latest', false])).transactions[0])));
      const priced = fakeExponential(1n, excess + parentUsed - BigInt(target * 131072), fraction);
      assert.equal(receipts[0].blobGasPrice, '0x' + priced.toString(16));
      assert.deepEqual({ ...receipts[0], blobGasPrice: 0, excessBlobGas: 0 }, { ...receipts[1], blobGasPrice: 0, excessBlobGas: 0 });
      for (const n of nodes) await n.rpc('evm_setAutomine', [true]);
      const blobFee = BigInt(await ours.rpc('eth_blobBaseFee'));
      assert.ok(blobFee > 1n, `blob base fee rose: ${ourFees.join(' ')}`);
      const [h0, h1] = await Promise.all(nodes.map((n) => n.rpc('eth_feeHistory', ['0x4', 'latest', []])));
      assert.deepEqual(h0.blobGasUsedRatio, h1.blobGasUsedRatio);
      assert.equal(h0.baseFeePerBlobGas[h0.baseFeePerBlobGas.length - 1], '0x' + blobFee.toString(16));
      // Offering less than the next block's blob base fee.
      const { fields, hash } = signBlobTx({ chainId: 984n, nonce, maxPriorityFeePerGas: GWEI, maxFeePerGas: 5n * GWEI, gas: 21000n, to: TO, maxFeePerBlobGas: blobFee - 1n, blobVersionedHashes: [vh] }, KEYS[2]);
      const low = await ours.raw('eth_sendRawTransaction', [wrap(fields, 0, [blob], [commitment], [proofOf(blob)])]);
      assert.equal(low.error?.code, -32000);
      assert.equal(low.error?.message, `max fee per blob gas less than block blob gas fee: address ${ADDRS[2].toLowerCase()}, maxFeePerBlobGas: ${blobFee - 1n}, blobBaseFee: ${blobFee}`);
      assert.equal(await ours.rpc('eth_getTransactionByHash', [hash]), null);
      assert.deepEqual(await ours.rpc('txpool_content'), { pending: {}, queued: {} });
    });
  });
}

describe('blob transactions at the default fork (Osaka cell proofs, bpo2)', () => {
  let ours: TestNode;
  let anvil: Anvil;

  before(async () => {
    [ours, anvil] = await Promise.all([startTestNode({ chain: { baseFee: 0n } }), startAnvil(['--base-fee', '0'])]);
  });
  after(async () => {
    await ours?.close();
    await anvil?.close();
  });

  test('viem through eth_sendTransaction with blobs: the node builds the sidecar; mined, served and fetched back', async () => {
    const blobs = [blobOf(5), blobOf(6)] as Hex[];
    const wallet = createWalletClient({ chain, transport: http(ours.url, { timeout: 300_000 }), account: ADDRS[0] });
    const pub = createPublicClient({ chain, transport: http(ours.url, { timeout: 300_000 }) });
    const hash = await wallet.sendTransaction({ to: TO, blobs, kzg: clientKzg, maxFeePerBlobGas: 10n * GWEI, chain });
    const receipt = await pub.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.equal(receipt.blobGasUsed, 262144n);
    assert.equal(receipt.blobGasPrice, 1n);
    const tx = await pub.getTransaction({ hash });
    assert.equal(tx.type, 'eip4844');
    assert.deepEqual(tx.blobVersionedHashes, blobs.map((b) => versionedHashOf(commitmentOf(b))));
    await blobsComeBack(ours, hash, blobs, 'gone');
  });

  test('a version-1 wrapper with cell proofs: the same receipt and fees as anvil; its blob comes back', async () => {
    const blob = blobOf(7);
    const commitment = commitmentOf(blob);
    const { fields } = signBlobTx({ chainId: 984n, nonce: 0n, maxPriorityFeePerGas: GWEI, maxFeePerGas: 3n * GWEI, gas: 21000n, to: TO, maxFeePerBlobGas: 2n, blobVersionedHashes: [versionedHashOf(commitment)] }, KEY3);
    const raw = wrap(fields, 1, [blob], [commitment], cellProofsOf(blob));
    const receipts = [];
    for (const n of [ours, anvil] as Rpc[]) receipts.push(await receiptOf(n, await n.rpc('eth_sendRawTransaction', [raw])));
    // anvil runs bpo1 by default, one blob schedule behind: one blob in an empty chain costs the
    // same. This node mined the transaction of the test before first.
    assert.deepEqual({ ...receipts[0], blockNumber: 0 }, { ...receipts[1], blockNumber: 0 });
    await blobsComeBack(ours, (await ours.rpc('eth_getBlockByNumber', ['latest', false])).transactions[0], [blob], 'gone');
  });

  test('ethers 6 (a local Wallet) and viem (a local account with kzg) send the version-0 wrapper; the node verifies it and converts it to version 1 as geth does: the same receipts as anvil; the blobs come back', async () => {
    const sends: Array<[string, (n: Rpc) => Promise<string>, string[]]> = [
      ['ethers', async (n) => {
        const signer = new Wallet(KEY4, new JsonRpcProvider(n.url, 984, { staticNetwork: true }));
        const sent = await signer.sendTransaction({ type: 3, to: TO, blobs: [blobOf(8)], kzg: clientKzg, maxFeePerBlobGas: GWEI, maxFeePerGas: 3n * GWEI, maxPriorityFeePerGas: GWEI, gasLimit: 21000n });
        return sent.hash;
      }, [blobOf(8)]],
      ['viem', async (n) => {
        const wallet = createWalletClient({ chain, transport: http(n.url, { timeout: 300_000 }), account: privateKeyToAccount(KEYS[1]) });
        return wallet.sendTransaction({ to: TO, blobs: [blobOf(9), blobOf(10)] as Hex[], kzg: clientKzg, maxFeePerBlobGas: GWEI, maxFeePerGas: 3n * GWEI, maxPriorityFeePerGas: GWEI, gas: 21000n, chain });
      }, [blobOf(9), blobOf(10)]],
    ];
    for (const [client, send, blobs] of sends) {
      const receipts = [];
      const hashes = [];
      for (const n of [ours, anvil] as Rpc[]) {
        const hash = await send(n);
        hashes.push(hash);
        receipts.push(await receiptOf(n, hash));
      }
      assert.equal(hashes[0], hashes[1], client);
      assert.equal(receipts[0].status, '0x1', client);
      assert.equal(receipts[0].blobGasUsed, '0x' + (131072 * blobs.length).toString(16), client);
      assert.deepEqual({ ...receipts[0], blockNumber: 0 }, { ...receipts[1], blockNumber: 0 }, client);
      await blobsComeBack(ours, hashes[0], blobs, 'gone');
      // Kept converted: the state dump's sidecar carries the 128 cell proofs of each blob.
      assert.deepEqual(dumpedTx(await ours.rpc('anvil_dumpState'), hashes[0]).proofs, blobs.flatMap(cellProofsOf), client);
    }
    assert.deepEqual(await ours.rpc('txpool_content'), { pending: {}, queued: {} });
  });
});
