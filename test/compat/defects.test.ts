/**
 * Defects real tools hit, each with the request that showed it: cheats kept in block history,
 * bare block hashes, eth_getProof keys and values, typed legacy requests without a gas price, the
 * struct logger's `limit`, and -32602 for oversized quantities and unknown tracers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Transaction } from 'ethers';
import { ADDRS, startTestNode, type TestNode } from '../support/node.js';
import { startCli } from '../support/cli.js';

const FRESH = '0x00000000000000000000000000000000c0ffee01';
const qty = (n: bigint | number) => '0x' + BigInt(n).toString(16);

describe('compatibility defects', () => {
  let n: TestNode;
  before(async () => {
    n = await startTestNode();
  });
  after(async () => n?.close());

  test('cheats at head N are part of block N once later blocks are mined', async () => {
    await n.rpc('evm_mine');
    const at = qty(BigInt(await n.rpc('eth_blockNumber')));
    // PUSH1 0 SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: returns slot 0.
    const code = '0x60005460005260206000f3';
    await n.rpc('hardhat_setBalance', [FRESH, '0xde0b6b3a7640000']);
    await n.rpc('anvil_setNonce', [FRESH, '0x7']);
    await n.rpc('hardhat_setCode', [FRESH, code]);
    await n.rpc('anvil_setStorageAt', [FRESH, '0x0', '0x' + '2a'.padStart(64, '0')]);
    await n.rpc('evm_mine');
    await n.rpc('evm_mine');
    assert.equal(await n.rpc('eth_getBalance', [FRESH, at]), '0xde0b6b3a7640000');
    assert.equal(await n.rpc('eth_getTransactionCount', [FRESH, at]), '0x7');
    assert.equal(await n.rpc('eth_getCode', [FRESH, at]), code);
    assert.equal(await n.rpc('eth_getStorageAt', [FRESH, '0x0', at]), '0x' + '2a'.padStart(64, '0'));
    assert.equal(await n.rpc('eth_call', [{ to: FRESH }, at]), '0x' + '2a'.padStart(64, '0'));
    const proof = await n.rpc('eth_getProof', [FRESH, ['0x0'], at]);
    assert.equal(proof.balance, '0xde0b6b3a7640000');
    assert.equal(proof.storageProof[0].value, '0x2a');
    // The block before still reads as it was.
    assert.equal(await n.rpc('eth_getBalance', [FRESH, qty(BigInt(at) - 1n)]), '0x0');
  });

  test('a transaction from a cheat-funded account replays and traces from the cheated state', async () => {
    const sender = '0x00000000000000000000000000000000c0ffee02';
    await n.rpc('anvil_setBalance', [sender, '0xde0b6b3a7640000']);
    await n.rpc('anvil_impersonateAccount', [sender]);
    const hash = await n.rpc('eth_sendTransaction', [{ from: sender, to: ADDRS[1], value: '0x1' }]);
    await n.rpc('anvil_stopImpersonatingAccount', [sender]);
    const receipt = await n.rpc('eth_getTransactionReceipt', [hash]);
    assert.equal(receipt.status, '0x1');
    const parent = qty(BigInt(receipt.blockNumber) - 1n);
    assert.equal(await n.rpc('eth_getBalance', [sender, parent]), '0xde0b6b3a7640000');
    const trace = await n.rpc('debug_traceTransaction', [hash, { tracer: 'callTracer' }]);
    assert.equal(trace.value, '0x1');
    assert.equal(trace.error, undefined);
  });

  test('a bare 32-byte block hash is a block hash wherever a block parameter is', async () => {
    // Mine until some block hash starts with 0x0 (the case once misread as a number with leading zeros).
    let zeroLed: string | undefined;
    for (let i = 0; i < 200 && zeroLed === undefined; i++) {
      await n.rpc('evm_mine');
      const b = await n.rpc('eth_getBlockByNumber', ['latest', false]);
      if (b.hash.startsWith('0x0')) zeroLed = b.hash;
    }
    assert.ok(zeroLed, 'no block hash starting with 0x0 in 200 blocks');
    await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: ADDRS[2], value: '0x5' }]);
    const head = await n.rpc('eth_getBlockByNumber', ['latest', false]);
    for (const hash of [zeroLed, head.hash]) {
      assert.equal(await n.rpc('eth_getBalance', [ADDRS[2], hash]), await n.rpc('eth_getBalance', [ADDRS[2], { blockHash: hash }]));
    }
    const receipts = await n.rpc('eth_getBlockReceipts', [head.hash]);
    assert.equal(receipts.length, 1);
    assert.equal(receipts[0].blockHash, head.hash);
    assert.deepEqual(await n.rpc('eth_getBlockReceipts', [head.hash]), await n.rpc('eth_getBlockReceipts', [head.number]));
    const unknown = await n.raw('eth_getBalance', [ADDRS[0], '0x' + '12'.repeat(32)]);
    assert.equal(unknown.error?.code, -32000);
    assert.match(unknown.error!.message, /not found/);
    assert.equal(await n.rpc('eth_getBlockReceipts', ['0x' + '12'.repeat(32)]), null);
  });

  test('eth_getProof takes zero-padded and short keys and answers minimal quantities', async () => {
    await n.rpc('anvil_setStorageAt', [FRESH, '0x2', '0x' + '0a'.padStart(64, '0')]);
    await n.rpc('anvil_setStorageAt', [FRESH, '0x3', '0x' + 'c9f'.padStart(64, '0')]);
    const full2 = '0x' + '2'.padStart(64, '0');
    const p = await n.rpc('eth_getProof', [FRESH, [full2, '0x02', '0x3', '0x9'], 'latest']);
    assert.deepEqual(
      p.storageProof.map((s: { key: string; value: string }) => [s.key, s.value]),
      [
        [full2, '0xa'],
        ['0x2', '0xa'],
        ['0x3', '0xc9f'],
        ['0x9', '0x0'],
      ],
    );
    const tooLong = await n.raw('eth_getProof', [FRESH, ['0x' + '1'.repeat(65)], 'latest']);
    assert.equal(tooLong.error?.code, -32602);
    assert.match(tooLong.error!.message, /argument 1\[0\]/);
  });

  test('typed legacy and access-list requests without a gas price are filled', async () => {
    for (const type of ['0x0', '0x1']) {
      const hash = await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: ADDRS[1], value: '0x1', type }]);
      const tx = await n.rpc('eth_getTransactionByHash', [hash]);
      assert.equal(tx.type, type);
      assert.ok(BigInt(tx.gasPrice) >= 7_000_000_000n, `gas price ${tx.gasPrice}`);
      const raw = await n.rpc('eth_signTransaction', [{ from: ADDRS[0], to: ADDRS[1], value: '0x1', type }]);
      const signed = Transaction.from(raw);
      assert.equal(signed.type, Number(type));
      assert.ok(signed.gasPrice! >= 7_000_000_000n, `signed gas price ${signed.gasPrice}`);
    }
  });

  test('debug_traceTransaction limit records the first `limit` steps', async () => {
    const hash = await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], data: '0x600a600b01600c02600d03' + '5060006000f3' }]);
    const all = await n.rpc('debug_traceTransaction', [hash]);
    assert.ok(all.structLogs.length > 10);
    const ten = await n.rpc('debug_traceTransaction', [hash, { limit: 10 }]);
    assert.equal(ten.structLogs.length, 10);
    assert.deepEqual(ten.structLogs, all.structLogs.slice(0, 10));
    assert.equal((await n.raw('debug_traceTransaction', [hash, { limit: -1 }])).error?.code, -32602);
  });

  test('oversized quantities and unknown tracers are invalid params', async () => {
    const big = '0x1' + '0'.repeat(64);
    const over64 = '0x1' + '0'.repeat(16);
    const cases: Array<[string, unknown[], RegExp]> = [
      ['eth_getBlockByNumber', [over64, false], /argument 0: hex number > 64 bits/],
      ['eth_getBalance', [ADDRS[0], over64], /argument 1: hex number > 64 bits/],
      ['eth_newFilter', [{ fromBlock: over64 }], /fromBlock: hex number > 64 bits/],
      ["eth_newFilter", [{ toBlock: big }], /toBlock: hex number > 256 bits/],
      ['eth_getLogs', [{ fromBlock: '0x0', toBlock: big }], /toBlock/],
      ['anvil_setBalance', [ADDRS[0], big], /argument 1: hex number > 256 bits/],
      ['hardhat_setBalance', [ADDRS[0], big], /argument 1: hex number > 256 bits/],
      ['eth_call', [{ to: ADDRS[1], value: big }, 'latest'], /value: hex number > 256 bits/],
      ['eth_call', [{ to: ADDRS[1], gas: over64 }, 'latest'], /gas: hex number > 64 bits/],
      ['eth_estimateGas', [{ from: ADDRS[0], to: ADDRS[1], nonce: over64 }], /nonce: hex number > 64 bits/],
      ['eth_sendTransaction', [{ from: ADDRS[0], to: ADDRS[1], gasPrice: big }], /gasPrice: hex number > 256 bits/],
      ['debug_traceCall', [{ to: ADDRS[1] }, 'latest', { tracer: 'noSuchTracer' }], /unknown tracer "noSuchTracer"/],
    ];
    for (const [method, params, message] of cases) {
      const r = await n.raw(method, params);
      assert.equal(r.error?.code, -32602, `${method} ${JSON.stringify(params)}: ${JSON.stringify(r)}`);
      assert.match(r.error!.message, message, method);
    }
    const hash = await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: ADDRS[1] }]);
    const tracer = await n.raw('debug_traceTransaction', [hash, { tracer: 'noSuchTracer' }]);
    assert.equal(tracer.error?.code, -32602);
  });
});

describe('--client-version', () => {
  test('replaces the whole web3_clientVersion answer (and anvil_metadata.clientVersion)', async () => {
    const node = await startCli(['--client-version', 'HardhatNetwork/2.26.0/node-rpc']);
    try {
      assert.equal(await node.rpc('web3_clientVersion'), 'HardhatNetwork/2.26.0/node-rpc');
      assert.equal((await node.rpc('anvil_metadata')).clientVersion, 'HardhatNetwork/2.26.0/node-rpc');
    } finally {
      await node.stop();
    }
    const bad = await startCli(['--client-version', '']).catch((e: Error) => e);
    assert.ok(bad instanceof Error);
    assert.match(bad.message, /--client-version.*must be 1 to 256 printable characters/);
  });
});
