/**
 * The node's Keccak-256 (src/chain/core/keccak.ts): hash-wasm's module called through its one-call
 * entry once it has loaded, giving what @noble/hashes gives for every length and offset, and the
 * EVM's KECCAK256 through it giving the same words as the traced run (ethereumjs's own hashing).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { keccak256, keccakBackend, keccakView, readyKeccak } from '../../src/chain/core/keccak.js';
import { createNode } from '../../src/lib/index.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const viewHex = (v: DataView): string => hex(new Uint8Array(v.buffer, v.byteOffset, 32));

describe('keccak', () => {
  test('hash-wasm answers through its module entry once loaded', async () => {
    await readyKeccak();
    // Another hash-wasm (or a loader that instantiates differently) would fall back to its hasher
    // object, still correct but slower: this says so when it happens.
    assert.equal(keccakBackend(), 'wasm-direct');
  });

  test('every length class and offset hashes as @noble/hashes does', async () => {
    await readyKeccak();
    const data = new Uint8Array(40_000);
    for (let i = 0; i < data.length; i++) data[i] = (i * 7919 + 13) & 0xff;
    const lengths = [0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 135, 136, 137, 271, 272, 273, 1000, 16_383, 16_384, 16_385, 32_768, 39_000];
    for (const n of lengths) {
      for (const start of [0, 1, 17, 999]) {
        if (start + n > data.length) continue;
        const want = hex(keccak_256(data.subarray(start, start + n)));
        assert.equal(hex(keccak256(data.subarray(start, start + n))), want, `keccak256 of ${n} bytes from ${start}`);
        assert.equal(viewHex(keccakView(data, start, n)), want, `keccakView of ${n} bytes from ${start}`);
      }
    }
    // A digest returned by keccak256 is the caller's: later hashes do not change it.
    const first = keccak256(data.subarray(0, 64));
    const copy = hex(first);
    keccak256(data.subarray(1, 65));
    keccakView(data, 2, 64);
    assert.equal(hex(first), copy);
  });

  test("the EVM's KECCAK256 gives the same words untraced (fast loop) and traced", async () => {
    const node = await createNode();
    try {
      const p = node.provider;
      // Hash chains over 0, 1, 32, 64, 200 and 20,000 bytes of memory (the last one in chunks of
      // the module's buffer), each digest stored for the return data.
      const parts: string[] = [];
      for (const [n, slot] of [[0, 0], [1, 1], [32, 2], [64, 3], [200, 4], [20_000, 5]] as const) {
        // MSTORE a pattern word at 0, then KECCAK256(0, n), MSTORE the result at 0x60000 + 32*slot.
        parts.push('7f' + 'a5'.repeat(31) + '07', '6000', '52');
        parts.push('62' + n.toString(16).padStart(6, '0'), '6000', '20');
        parts.push('62' + (0x60000 + 32 * slot).toString(16).padStart(6, '0'), '52');
      }
      parts.push('60c0', '6206' + '0000', 'f3'); // RETURN(0x60000, 192)
      const data = '0x' + parts.join('');
      const call = { data, gas: '0x2000000' };
      const untraced = (await p.request({ method: 'eth_call', params: [call, 'latest'] })) as string;
      const traced = (await p.request({ method: 'debug_traceCall', params: [call, 'latest', { tracer: 'callTracer' }] })) as { output: string };
      assert.equal(untraced.length, 2 + 2 * 192);
      assert.equal(untraced, traced.output);
      const mem = new Uint8Array(20_000);
      for (let i = 0; i < 31; i++) mem[i] = 0xa5;
      mem[31] = 0x07;
      for (const [k, n] of [0, 1, 32, 64, 200, 20_000].entries()) {
        assert.equal(untraced.slice(2 + 64 * k, 2 + 64 * (k + 1)), hex(keccak_256(mem.subarray(0, n))), `digest of ${n} bytes`);
      }
    } finally {
      await node.close();
    }
  });
});
