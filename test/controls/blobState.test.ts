/**
 * Blob sidecars in state files (anvil's format keeps them beside each blob transaction's fields):
 * written by anvil_dumpState and read by anvil_loadState, between two nodes, from anvil into
 * node-rpc and from node-rpc into anvil, and blob transactions still in the pool; after each load
 * the blobs come back byte for byte by versioned hash, by transaction and through the beacon route.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ADDRS, KEYS, startTestNode, type TestNode } from '../support/node.js';
import { startAnvil, type Anvil } from '../support/anvil.js';
import { blobOf, commitmentOf, proofOf, signBlobTx, versionedHashOf, wrap } from '../support/kzg.js';

const TO = '0x00000000000000000000000000000000000b10b5';
const GWEI = 10n ** 9n;

interface Rpc {
  url: string;
  rpc<T = any>(method: string, params?: unknown[]): Promise<T>;
}

/** A signed version-0 blob transaction of `blobs` from dev account `k` at `nonce`. */
function blobTx(k: number, nonce: bigint, blobs: string[]): { raw: string; hash: string } {
  const { fields, hash } = signBlobTx(
    { chainId: 984n, nonce, maxPriorityFeePerGas: GWEI, maxFeePerGas: 5n * GWEI, gas: 21000n, to: TO, maxFeePerBlobGas: 10n, blobVersionedHashes: blobs.map((b) => versionedHashOf(commitmentOf(b))) },
    KEYS[k],
  );
  return { raw: wrap(fields, 0, blobs, blobs.map(commitmentOf), blobs.map(proofOf)), hash };
}

async function mined(n: Rpc, hash: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const r = await n.rpc('eth_getTransactionReceipt', [hash]);
    if (r) return r;
    await new Promise((res) => setTimeout(res, 25));
  }
  assert.fail(`${hash} not mined`);
}

/** The blobs of `hash` come back by transaction, by versioned hash and (when `beacon`) through the beacon route. */
async function comeBack(n: Rpc, hash: string, blobs: string[], beacon = true): Promise<void> {
  assert.deepEqual(await n.rpc('anvil_getBlobsByTransactionHash', [hash]), blobs);
  for (const b of blobs) assert.equal(await n.rpc('anvil_getBlobByHash', [versionedHashOf(commitmentOf(b))]), b);
  if (!beacon) return;
  const r = await mined(n, hash);
  const res = await fetch(`${n.url}/eth/v1/beacon/blobs/${Number(r.blockNumber)}`);
  assert.deepEqual(((await res.json()) as { data: string[] }).data, blobs);
}

describe('blob sidecars in state files (cancun)', () => {
  const open: Array<TestNode | Anvil> = [];
  const node = async () => {
    const n = await startTestNode({ chain: { hardfork: 'cancun' } });
    open.push(n);
    return n;
  };
  const anvil = async () => {
    const a = await startAnvil(['--hardfork', 'cancun']);
    open.push(a);
    return a;
  };
  after(async () => {
    for (const n of open) await n.close();
  });
  const blobs = [blobOf(31), blobOf(32)];

  test('node-rpc to node-rpc: mined blob transactions and one still in the pool', async () => {
    const a = await node();
    const first = blobTx(0, 0n, blobs);
    await a.rpc('eth_sendRawTransaction', [first.raw]);
    await a.rpc('evm_setAutomine', [false]);
    const waiting = blobTx(0, 1n, [blobs[1]]);
    await a.rpc('eth_sendRawTransaction', [waiting.raw]);
    const state = await a.rpc('anvil_dumpState');
    const b = await node();
    assert.equal(await b.rpc('anvil_loadState', [state]), true);
    await comeBack(b, first.hash, blobs);
    await b.rpc('evm_mine');
    await comeBack(b, waiting.hash, [blobs[1]]);
  });

  test('anvil to node-rpc', async () => {
    const a = await anvil();
    const sent = blobTx(1, 0n, blobs);
    await a.rpc('eth_sendRawTransaction', [sent.raw]);
    await mined(a, sent.hash);
    const b = await node();
    assert.equal(await b.rpc('anvil_loadState', [await a.rpc('anvil_dumpState')]), true);
    await comeBack(b, sent.hash, blobs);
  });

  test('node-rpc to anvil', async () => {
    const a = await node();
    const sent = blobTx(2, 0n, blobs);
    await a.rpc('eth_sendRawTransaction', [sent.raw]);
    const b = await anvil();
    assert.equal(await b.rpc('anvil_loadState', [await a.rpc('anvil_dumpState')]), true);
    await comeBack(b, sent.hash, blobs, false);
    assert.equal((await b.rpc('eth_getTransactionByHash', [sent.hash])).from, ADDRS[2].toLowerCase());
  });
});

describe('blob transactions on a fork (cancun)', () => {
  let up: TestNode;
  let fork: TestNode;
  after(async () => {
    await fork?.close();
    await up?.close();
  });

  test('upstream blob transactions are served as they are; local ones mine on the fork block and their blobs come back', async () => {
    up = await startTestNode({ chain: { hardfork: 'cancun' } });
    const upstream = blobTx(0, 0n, [blobOf(41)]);
    await up.rpc('eth_sendRawTransaction', [upstream.raw]);
    const forkBlock = BigInt(await up.rpc('eth_blockNumber'));
    fork = await startTestNode({ chain: { hardfork: 'cancun' }, fork: { url: up.url, blockNumber: forkBlock, retries: 2, backoffMs: 20, timeoutMs: 2000 } });
    const seen = await fork.rpc('eth_getTransactionByHash', [upstream.hash]);
    assert.deepEqual(seen.blobVersionedHashes, [versionedHashOf(commitmentOf(blobOf(41)))]);
    assert.equal(seen.maxFeePerBlobGas, '0xa');
    assert.equal((await fork.rpc('eth_getTransactionReceipt', [upstream.hash])).blobGasUsed, '0x20000');
    const local = blobTx(1, 0n, [blobOf(42), blobOf(43)]);
    assert.equal(await fork.rpc('eth_sendRawTransaction', [local.raw]), local.hash);
    const r = await mined(fork, local.hash);
    assert.equal(r.blockNumber, '0x' + (forkBlock + 1n).toString(16));
    assert.equal(r.blobGasUsed, '0x40000');
    await comeBack(fork, local.hash, [blobOf(42), blobOf(43)]);
  });
});
