import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Interface, Transaction, decodeRlp, keccak256, toBeHex, zeroPadValue } from 'ethers';
import { createMPT } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util';
import { setStorageAt } from '../../src/chain/controls/cheats.js';
import { ADDRS, artifact, startTestNode, type TestNode } from '../support/node.js';

const SLOT0 = zeroPadValue('0x00', 32);
const word = (n: bigint | number) => zeroPadValue(toBeHex(n), 32);

/**
 * Runtime code returning five words: NUMBER, TIMESTAMP, COINBASE, BASEFEE, PREVRANDAO
 * (placed with a state override to observe block overrides).
 */
const BLOCK_ECHO = '0x435f52426020524160405248606052446080' + '52' + '60a05ff3';

describe('debug_trace* on a live node', () => {
  let n: TestNode;
  const callee = new Interface(artifact('Callee').abi);
  let calleeAddr: string;
  /** The block holding three store() calls, and their hashes in block order. */
  let multi: { number: string; hash: string; txs: string[] };
  let later: string;

  before(async () => {
    n = await startTestNode();
    const h = await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], data: artifact('Callee').bytecode }]);
    calleeAddr = (await n.rpc('eth_getTransactionReceipt', [h])).contractAddress;
    await n.node.miner.setAutomine(false);
    const txs: string[] = [];
    for (const [i, v] of [10, 20, 30].entries()) {
      txs.push(await n.rpc('eth_sendTransaction', [{ from: ADDRS[i], to: calleeAddr, data: callee.encodeFunctionData('store', [v]) }]));
    }
    const block = await n.node.miner.mineNow();
    await n.node.miner.setAutomine(true);
    assert.deepEqual(
      block.txs.map((t) => t.hashHex),
      txs,
      'fifo-equal fees keep arrival order',
    );
    multi = { number: '0x' + block.number.toString(16), hash: block.hashHex, txs };
    // A later block changes the same slot again.
    later = await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: calleeAddr, data: callee.encodeFunctionData('store', [99]) }]);
  });
  after(async () => {
    await n.close();
  });

  const receipt = (h: string) => n.rpc('eth_getTransactionReceipt', [h]);

  test('each transaction of a block is traced on the state left by the ones before it', async () => {
    const key = calleeAddr.toLowerCase();
    const pre1 = await n.rpc('debug_traceTransaction', [multi.txs[1], { tracer: 'prestateTracer' }]);
    assert.equal(pre1[key].storage[SLOT0], word(10));
    const diff2 = await n.rpc('debug_traceTransaction', [multi.txs[2], { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]);
    assert.equal(diff2.pre[key].storage[SLOT0], word(20));
    assert.equal(diff2.post[key].storage[SLOT0], word(30));
    // The later block does not leak in: the struct logger's gas is the mined gas (SSTORE pricing
    // depends on the slot's value at the start of the transaction).
    for (const h of multi.txs) {
      const t = await n.rpc('debug_traceTransaction', [h]);
      assert.equal(t.gas, Number(BigInt((await receipt(h)).gasUsed)), h);
      assert.equal(t.failed, false);
      assert.equal(t.returnValue, word(2 * [10, 20, 30][multi.txs.indexOf(h)]));
      const sstore = t.structLogs.find((l: { op: string }) => l.op === 'SSTORE');
      // (the key/value spelling is the struct logger's business; compare the numbers)
      const entries = Object.entries(sstore.storage as Record<string, string>).map(([k, v]) => [BigInt('0x' + k.replace(/^0x/, '')), BigInt('0x' + v.replace(/^0x/, ''))]);
      assert.deepEqual(entries, [[0n, BigInt([10, 20, 30][multi.txs.indexOf(h)])]]);
    }
    const first = (await receipt(multi.txs[0])).gasUsed;
    const second = (await receipt(multi.txs[1])).gasUsed;
    assert.ok(BigInt(first) > BigInt(second), 'zero→nonzero store costs more than nonzero→nonzero');
    const last = await n.rpc('debug_traceTransaction', [later, { tracer: 'prestateTracer' }]);
    assert.equal(last[key].storage[SLOT0], word(30));
  });

  test('log indexes in call traces are block-wide', async () => {
    const t = await n.rpc('debug_traceTransaction', [multi.txs[2], { tracer: 'callTracer', tracerConfig: { withLog: true } }]);
    assert.equal(t.logs.length, 1);
    assert.equal(t.logs[0].index, '0x2');
    assert.equal(t.logs[0].address, calleeAddr.toLowerCase());
    assert.equal(t.gasUsed, (await receipt(multi.txs[2])).gasUsed);
  });

  test('debug_traceBlockByNumber and ByHash give [{txHash, result}] in block order', async () => {
    const byNumber = await n.rpc('debug_traceBlockByNumber', [multi.number, { tracer: 'prestateTracer' }]);
    const byHash = await n.rpc('debug_traceBlockByHash', [multi.hash, { tracer: 'prestateTracer' }]);
    assert.deepEqual(byNumber, byHash);
    assert.deepEqual(
      byNumber.map((e: { txHash: string }) => e.txHash),
      multi.txs,
    );
    const key = calleeAddr.toLowerCase();
    assert.deepEqual(
      byNumber.map((e: { result: Record<string, { storage?: Record<string, string> }> }) => e.result[key].storage?.[SLOT0] ?? word(0)),
      [word(0), word(10), word(20)],
    );
    for (const [i, e] of byNumber.entries()) {
      assert.deepEqual(e.result, await n.rpc('debug_traceTransaction', [multi.txs[i], { tracer: 'prestateTracer' }]));
    }
    const calls = await n.rpc('debug_traceBlockByNumber', [multi.number, { tracer: 'callTracer' }]);
    assert.deepEqual(
      calls.map((e: { result: { input: string } }) => e.result.input),
      [10, 20, 30].map((v) => callee.encodeFunctionData('store', [v])),
    );
    const empty = await n.rpc('debug_traceBlockByNumber', ['latest', { tracer: 'noopTracer' }]);
    assert.equal(empty.length, 1);
    assert.deepEqual(empty[0], { txHash: later, result: {} });
  });

  test('a timeout fails only its own entry of a block trace', async () => {
    await n.node.miner.setAutomine(false);
    let burn: string;
    let store: string;
    try {
      burn = await n.rpc('eth_sendTransaction', [{ from: ADDRS[1], to: calleeAddr, data: callee.encodeFunctionData('burn'), gas: '0x493e0' }]);
      // (the value the later tests expect at latest)
      store = await n.rpc('eth_sendTransaction', [{ from: ADDRS[2], to: calleeAddr, data: callee.encodeFunctionData('store', [99]) }]);
      await n.node.miner.mineNow();
    } finally {
      await n.node.miner.setAutomine(true);
    }
    const r = await receipt(store);
    const traces = await n.rpc('debug_traceBlockByNumber', [r.blockNumber, { timeout: '20ms' }]);
    assert.deepEqual(traces[0], { txHash: burn, error: 'execution timeout' });
    assert.equal(traces[1].txHash, store);
    assert.equal(traces[1].result.gas, Number(BigInt(r.gasUsed)), 'the next transaction still runs on the right state');
    const alone = await n.raw('debug_traceTransaction', [burn, { timeout: '20ms' }]);
    assert.deepEqual(alone.error, { code: -32000, message: 'execution timeout' });
    const full = await n.rpc('debug_traceTransaction', [burn, { tracer: 'callTracer' }]);
    assert.match(full.error, /^out of gas/);
    assert.equal(full.gasUsed, '0x493e0');
  });

  test('state edited between blocks (test controls) is where the next block replay starts', async () => {
    await setStorageAt(n.node, createAddressFromString(calleeAddr), hexToBytes(SLOT0 as `0x${string}`), hexToBytes(word(1234) as `0x${string}`));
    const h = await n.rpc('eth_sendTransaction', [{ from: ADDRS[1], to: calleeAddr, data: callee.encodeFunctionData('store', [99]) }]);
    const diff = await n.rpc('debug_traceTransaction', [h, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]);
    assert.equal(diff.pre[calleeAddr.toLowerCase()].storage[SLOT0], word(1234));
    const t = await n.rpc('debug_traceTransaction', [h]);
    assert.equal(t.gas, Number(BigInt((await receipt(h)).gasUsed)));
  });

  test('block lookups that fail say which block', async () => {
    const genesis = await n.raw('debug_traceBlockByNumber', ['0x0']);
    assert.deepEqual(genesis.error, { code: -32000, message: 'genesis is not traceable' });
    const missing = await n.raw('debug_traceBlockByNumber', ['0x999']);
    assert.deepEqual(missing.error, { code: -32000, message: 'block #2457 not found' });
    const unknownHash = '0x' + 'ab'.repeat(32);
    const byHash = await n.raw('debug_traceBlockByHash', [unknownHash]);
    assert.deepEqual(byHash.error, { code: -32000, message: `block ${unknownHash} not found` });
    const tx = await n.raw('debug_traceTransaction', [unknownHash]);
    assert.deepEqual(tx.error, { code: -32000, message: 'transaction not found' });
  });

  test('unknown tracers and bad options are -32602 naming them', async () => {
    const bad = await n.raw('debug_traceTransaction', [multi.txs[0], { tracer: 'fancyTracer' }]);
    assert.equal(bad.error?.code, -32602);
    assert.match(bad.error!.message, /fancyTracer/);
    const opt = await n.raw('debug_traceTransaction', [multi.txs[0], { tracer: 'callTracer', tracerConfig: { onlyTopCall: true, bogus: 1 } }]);
    assert.equal(opt.error?.code, -32602);
    assert.match(opt.error!.message, /bogus/);
    const top = await n.raw('debug_traceCall', [{ to: calleeAddr }, 'latest', { disableStack: 'yes' }]);
    assert.equal(top.error?.code, -32602);
    assert.match(top.error!.message, /disableStack/);
    const block = await n.raw('debug_traceCall', [{ to: calleeAddr }, 'latest', { blockOverrides: { number: 12 } }]);
    assert.equal(block.error?.code, -32602);
    assert.match(block.error!.message, /blockOverrides\.number/);
    const state = await n.raw('debug_traceCall', [{ to: calleeAddr }, 'latest', { stateOverrides: { [calleeAddr]: { balance: 'lots' } } }]);
    assert.equal(state.error?.code, -32602);
    assert.match(state.error!.message, /stateOverrides/);
    const hash = await n.raw('debug_traceTransaction', ['0x1234']);
    assert.equal(hash.error?.code, -32602);
  });

  test('debug_traceCall runs at the requested block, with state and block overrides', async () => {
    const stored = callee.encodeFunctionData('stored');
    const at = async (block: unknown, config?: object) => (await n.rpc('debug_traceCall', [{ to: calleeAddr, data: stored }, block, config])).returnValue;
    assert.equal(await at('latest'), word(99));
    assert.equal(await at(multi.number), word(30));
    assert.equal(await at({ blockHash: multi.hash }), word(30));
    assert.equal(await at(multi.hash), word(30));
    // At a position inside the block: after the first transaction only.
    assert.equal(await at(multi.number, { txIndex: '0x1' }), word(10));
    assert.equal(await at(multi.number, { txIndex: '0x0' }), word(0));
    // State overrides apply before execution (and show in prestate).
    const overridden = { [calleeAddr]: { stateDiff: { [SLOT0]: word(7) } } };
    assert.equal(await at('latest', { stateOverrides: overridden }), word(7));
    const pre = await n.rpc('debug_traceCall', [{ to: calleeAddr, data: stored }, 'latest', { tracer: 'prestateTracer', stateOverrides: overridden }]);
    assert.equal(pre[calleeAddr.toLowerCase()].storage[SLOT0], word(7));
    assert.equal(await at('latest'), word(99), 'overrides do not persist');

    const echo = '0x00000000000000000000000000000000000e0c40';
    const code = { [echo]: { code: BLOCK_ECHO } };
    const plain = await n.rpc('debug_traceCall', [{ to: echo }, 'latest', { stateOverrides: code }]);
    const head = await n.rpc('eth_getBlockByNumber', ['latest', false]);
    const words = (hex: string) => hex.slice(2).match(/.{64}/g)!.map((w) => BigInt('0x' + w));
    assert.deepEqual(words(plain.returnValue).slice(0, 3), [BigInt(head.number), BigInt(head.timestamp), 0n]);
    assert.equal(words(plain.returnValue)[3], 0n, 'an unpriced call runs at a zero base fee, as eth_call');
    const randao = '0x' + '5a'.repeat(32);
    const moved = await n.rpc('debug_traceCall', [
      { to: echo },
      'latest',
      { stateOverrides: code, blockOverrides: { number: '0x1234', time: '0x77777777', feeRecipient: ADDRS[2], baseFee: '0x7', prevRandao: randao } },
    ]);
    assert.deepEqual(words(moved.returnValue), [0x1234n, 0x77777777n, BigInt(ADDRS[2]), 0n, BigInt(randao)], 'unpriced: zero base fee, as geth');
    const priced = await n.rpc('debug_traceCall', [
      { from: ADDRS[0], to: echo, maxFeePerGas: '0x3b9aca00', maxPriorityFeePerGas: '0x1' },
      'latest',
      { stateOverrides: code, blockOverrides: { baseFeePerGas: '0x7' } },
    ]);
    assert.equal(words(priced.returnValue)[3], 7n);
    // The older spellings geth accepted are understood too.
    const old = await n.rpc('debug_traceCall', [{ to: echo }, 'latest', { stateOverrides: code, blockOverrides: { coinbase: ADDRS[1], random: randao } }]);
    assert.equal(words(old.returnValue)[2], BigInt(ADDRS[1]));
    const ops = plain.structLogs.map((l: { op: string }) => l.op);
    assert.deepEqual(ops.slice(0, 4), ['NUMBER', 'PUSH0', 'MSTORE', 'TIMESTAMP']);
  });

  test('debug_traceCall with other tracers: call frames, reverts, creations', async () => {
    const fail = await n.rpc('debug_traceCall', [{ from: ADDRS[0], to: calleeAddr, data: callee.encodeFunctionData('fail') }, 'latest', { tracer: 'callTracer' }]);
    assert.equal(fail.type, 'CALL');
    assert.equal(fail.error, 'execution reverted');
    assert.equal(fail.revertReason, 'callee failed');
    assert.equal(fail.from, ADDRS[0].toLowerCase());
    const create = await n.rpc('debug_traceCall', [{ from: ADDRS[0], data: artifact('Callee').bytecode }, 'latest', { tracer: 'callTracer' }]);
    assert.equal(create.type, 'CREATE');
    assert.match(create.to, /^0x[0-9a-f]{40}$/);
    const four = await n.rpc('debug_traceCall', [{ to: calleeAddr, data: callee.encodeFunctionData('store', [1]) }, 'latest', { tracer: '4byteTracer' }]);
    assert.deepEqual(four, { '0x6057361d-32': 1 });
    const mux = await n.rpc('debug_traceCall', [{ to: calleeAddr, data: callee.encodeFunctionData('store', [1]) }, 'latest', { tracer: 'muxTracer', tracerConfig: { '4byteTracer': {}, noopTracer: {} } }]);
    assert.deepEqual(mux, { '4byteTracer': { '0x6057361d-32': 1 }, noopTracer: {} });
    assert.equal(await n.rpc('eth_call', [{ to: calleeAddr, data: callee.encodeFunctionData('stored') }]), word(99), 'the call left no state');
  });

  test('raw encodings: transaction, header, block and receipts', async () => {
    const h = multi.txs[1];
    const rawTx = await n.rpc('debug_getRawTransaction', [h]);
    assert.equal(rawTx, await n.rpc('eth_getRawTransactionByHash', [h]));
    assert.equal(Transaction.from(rawTx).hash, h);
    assert.equal(await n.rpc('debug_getRawTransaction', ['0x' + '00'.repeat(32)]), '0x');

    const rawHeader = await n.rpc('debug_getRawHeader', [multi.number]);
    assert.equal(keccak256(rawHeader), multi.hash);
    assert.equal(await n.rpc('debug_getRawHeader', [multi.hash]), rawHeader);
    const rawBlock = await n.rpc('debug_getRawBlock', [multi.number]);
    const fields = decodeRlp(rawBlock) as string[][];
    assert.equal(fields[1].length, 3, 'three transactions');
    assert.equal(keccak256(RLP.encode(RLP.decode(hexToBytes(rawBlock))[0] as Uint8Array[])), multi.hash);

    const receipts: string[] = await n.rpc('debug_getRawReceipts', [multi.number]);
    assert.equal(receipts.length, 3);
    const trie = await createMPT();
    for (const [i, r] of receipts.entries()) await trie.put(RLP.encode(i), hexToBytes(r as `0x${string}`));
    const block = await n.rpc('eth_getBlockByNumber', [multi.number, false]);
    assert.equal(bytesToHex(trie.root()), block.receiptsRoot, 'the receipts trie of the raw receipts is the header receiptsRoot');
    const txTrie = await createMPT();
    for (const [i, tx] of (block.transactions as string[]).entries()) await txTrie.put(RLP.encode(i), hexToBytes(await n.rpc('debug_getRawTransaction', [tx])));
    assert.equal(bytesToHex(txTrie.root()), block.transactionsRoot, 'the transactions trie of the raw transactions is the header transactionsRoot');
    // Typed receipt: 0x02 || rlp([status, cumulativeGas, bloom, logs]).
    const decoded = decodeRlp('0x' + receipts[1].slice(4)) as unknown[];
    const mined = await receipt(h);
    assert.equal(receipts[1].slice(0, 4), '0x02');
    assert.equal(decoded[0], '0x01');
    assert.equal(BigInt(decoded[1] as string), BigInt(mined.cumulativeGasUsed));
    assert.equal(decoded[2], mined.logsBloom);

    const missing = await n.raw('debug_getRawBlock', ['0x999']);
    assert.deepEqual(missing.error, { code: -32000, message: 'block #2457 not found' });
    const missingHeader = await n.raw('debug_getRawHeader', ['0x999']);
    assert.deepEqual(missingHeader.error, { code: -32000, message: 'header #2457 not found' });
    assert.deepEqual(await n.rpc('debug_getRawReceipts', ['0x0']), []);
  });
});
