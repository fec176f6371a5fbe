/**
 * The lean read path (src/chain/exec/lean.ts) against runTx: the same requests on the same state
 * must give the same return data, error and execution gas. Generated programs (the consensus
 * fuzzer's) cover execution; hand-written probes cover what runTx sets up around it: warm
 * addresses, the sender's account, gas handed to the top frame, the block context.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getMinimumGasLimit } from '@ethereumjs/tx';
import { Address, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { callBlock } from '../../src/chain/exec/blockContext.js';
import { runDiscarded, ZERO_ADDRESS } from '../../src/chain/exec/call.js';
import { leanCall, leanMinimumGas, leanRules } from '../../src/chain/exec/lean.js';
import { unsignedTx } from '../../src/chain/exec/request.js';
import type { TxRequest } from '../../src/chain/core/types.js';
import { CONTRACTS, Rng, program } from '../consensus/fuzz.js';
import { ADDRS, startTestNode, type TestNode } from '../support/node.js';

const op = (...bytes: number[]) => bytes;
const push20 = (a: Address) => [0x73, ...a.bytes];
/** GAS <address> BALANCE POP GAS SWAP1 SUB: the cost of touching an address, left on the stack. */
const touchCost = (addr: number[]) => [0x5a, ...addr, 0x31, 0x50, 0x5a, 0x90, 0x03];

/** Probe: the cost of touching origin, coinbase, a precompile, itself, a fresh address, then facts about origin and the block. */
function probe(fresh: Address): Uint8Array {
  const words: number[][] = [
    touchCost(op(0x32)), // ORIGIN
    touchCost(op(0x41)), // COINBASE
    touchCost(op(0x60, 0x01)), // ecrecover
    touchCost(op(0x30)), // ADDRESS
    touchCost(push20(fresh)),
    touchCost(push20(fresh)), // warm the second time
    op(0x32, 0x3f), // EXTCODEHASH(ORIGIN)
    op(0x32, 0x31), // BALANCE(ORIGIN)
    op(0x30, 0x3f), // EXTCODEHASH(ADDRESS)
    op(0x33, 0x3b), // EXTCODESIZE(CALLER)
    op(0x3a), // GASPRICE
    op(0x48), // BASEFEE
    op(0x47), // SELFBALANCE
    op(0x5a), // GAS
  ];
  const code: number[] = [];
  words.forEach((w, i) => code.push(...w, 0x60, i * 32, 0x52)); // ... PUSH1 i*32 MSTORE
  code.push(0x61, (words.length * 32) >> 8, (words.length * 32) & 0xff, 0x60, 0x00, 0xf3); // RETURN(0, n*32)
  return Uint8Array.from(code);
}

describe('lean eth_call path', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
  });
  after(() => node.close());

  async function both(req: TxRequest) {
    const dev = node.node;
    const block = callBlock(dev.common, dev.head.block, req);
    const from = req.from ?? ZERO_ADDRESS;
    const gas = req.gas ?? block.header.gasLimit;
    const lean = await leanCall(dev.vm, block, { ...req, gas }, from);
    // runTx refuses what the lean path leaves to it (too little gas for the calldata floor).
    const full = lean === undefined ? undefined : (await runDiscarded(dev.vm, block, req)).result;
    return { lean, full };
  }

  function assertSame(lean: Awaited<ReturnType<typeof both>>['lean'], full: Awaited<ReturnType<typeof both>>['full'], what: string) {
    assert.ok(lean !== undefined && full !== undefined, `${what}: the lean path took it`);
    assert.equal(bytesToHex(lean.execResult.returnValue), bytesToHex(full.execResult.returnValue), `${what}: return data`);
    assert.equal(lean.execResult.exceptionError?.error, full.execResult.exceptionError?.error, `${what}: error`);
    assert.equal(lean.execResult.executionGasUsed, full.execResult.executionGasUsed, `${what}: execution gas`);
  }

  test('intrinsic gas and the calldata floor are the transaction library\'s', () => {
    const rules = leanRules(node.node.common)!;
    const r = new Rng(7);
    for (let i = 0; i < 200; i++) {
      const data = Uint8Array.from({ length: r.int(300) }, () => (r.chance(0.4) ? 0 : r.int(256)));
      const tx = unsignedTx({ to: CONTRACTS[0], data, gas: 10_000_000n }, node.node.common);
      const { intrinsic, minimum } = leanMinimumGas(rules, data);
      assert.equal(intrinsic, tx.getIntrinsicGas(), `intrinsic of ${data.length} bytes`);
      assert.equal(minimum, getMinimumGasLimit(tx, ZERO_ADDRESS), `minimum of ${data.length} bytes`);
    }
  });

  test('probes of what runTx sets up read the same (senders with and without an account)', async () => {
    const at = '0x00000000000000000000000000000000000be000';
    await node.rpc('anvil_setCode', [at, bytesToHex(probe(new Address(hexToBytes('0x00000000000000000000000000000000000f2e54'))))]);
    await node.rpc('anvil_setCoinbase', ['0x00000000000000000000000000000000000c0b0e']);
    await node.rpc('evm_mine');
    const to = new Address(hexToBytes(at));
    for (const from of [new Address(hexToBytes(ADDRS[1])), new Address(hexToBytes('0x00000000000000000000000000000000000a11ce')), undefined]) {
      for (const gas of [undefined, 100_000n, 30_000n, 21_500n]) {
        const { lean, full } = await both({ from, to, gas, data: Uint8Array.of(1, 0, 2) });
        assertSame(lean, full, `from ${from ?? 'none'} gas ${gas ?? 'default'}`);
      }
    }
  });

  test('the top frame reads the same whatever it calls: no account, an account without code, a precompile, a delegated account, the sender itself', async () => {
    const probeAt = '0x00000000000000000000000000000000000be001';
    const delegated = '0x00000000000000000000000000000000000de1e9';
    await node.rpc('anvil_setCode', [probeAt, bytesToHex(probe(new Address(hexToBytes('0x00000000000000000000000000000000000f2e55'))))]);
    // An EIP-7702 delegation to the probe: its code runs with the delegating account as ADDRESS.
    await node.rpc('anvil_setCode', [delegated, `0xef0100${probeAt.slice(2)}`]);
    await node.rpc('evm_mine');
    // Nested frames keep their balance updates: the payer sends 1 wei to a fresh address, 0 to
    // another, and returns both addresses' BALANCE and EXTCODEHASH and its own balance.
    const payer = '0x00000000000000000000000000000000000be002';
    const [paid, touched] = [new Address(hexToBytes('0x00000000000000000000000000000000000f2e57')), new Address(hexToBytes('0x00000000000000000000000000000000000f2e58'))];
    const call = (to: Address, value: number) => [0x60, 0, 0x60, 0, 0x60, 0, 0x60, 0, 0x60, value, ...push20(to), 0x5a, 0xf1, 0x50];
    const payerCode = [...call(paid, 1), ...call(touched, 0)];
    [op(...push20(paid), 0x31), op(...push20(touched), 0x31), op(...push20(paid), 0x3f), op(...push20(touched), 0x3f), op(0x47)].forEach((w, i) => payerCode.push(...w, 0x60, i * 32, 0x52));
    payerCode.push(0x60, 5 * 32, 0x60, 0, 0xf3);
    await node.rpc('anvil_setCode', [payer, bytesToHex(Uint8Array.from(payerCode))]);
    await node.rpc('anvil_setBalance', [payer, '0x64']);
    await node.rpc('evm_mine');
    const sender = new Address(hexToBytes(ADDRS[2]));
    const targets: `0x${string}`[] = [
      payer,
      '0x00000000000000000000000000000000000f2e56', // no account
      ADDRS[1], // an account without code
      '0x0000000000000000000000000000000000000002', // sha256
      '0x0000000000000000000000000000000000000004', // identity
      delegated,
      sender.toString(),
    ];
    for (const at of targets) {
      for (const from of [sender, undefined]) {
        const { lean, full } = await both({ from, to: new Address(hexToBytes(at)), data: Uint8Array.of(1, 2, 3), gas: 200_000n });
        assertSame(lean, full, `to ${at} from ${from ?? 'none'}`);
      }
    }
  });

  test('requests the lean path does not take go through runTx', async () => {
    const to = CONTRACTS[0]!;
    const dev = node.node;
    const block = callBlock(dev.common, dev.head.block, {});
    for (const req of [{ to, value: 1n }, { to, gasPrice: 1n }, { to, accessList: [] }, {}, { to, gas: 21_000n, data: Uint8Array.of(1) }] as TxRequest[]) {
      assert.equal(await leanCall(dev.vm, block, { ...req, gas: req.gas ?? 1_000_000n }, ZERO_ADDRESS), undefined, JSON.stringify(req, (_, v) => (typeof v === 'bigint' ? String(v) : v)));
    }
  });

  test('generated programs give the same outcome on both paths', async () => {
    const r = new Rng(984);
    for (const c of CONTRACTS) await node.rpc('anvil_setBalance', [c.toString(), '0xde0b6b3a7640000']);
    for (let n = 0; n < 150; n++) {
      for (let c = 0; c < CONTRACTS.length; c++) await node.rpc('anvil_setCode', [CONTRACTS[c]!.toString(), bytesToHex(program(r, c))]);
      const to = CONTRACTS[r.int(CONTRACTS.length)]!;
      const data = Uint8Array.from({ length: r.int(70) }, () => r.int(256));
      const from = r.chance(0.5) ? new Address(hexToBytes(ADDRS[0])) : undefined;
      const plenty = await both({ from, to, data, gas: 3_000_000n });
      assertSame(plenty.lean, plenty.full, `program ${n} with plenty of gas`);
      const used = plenty.full!.execResult.executionGasUsed;
      for (const gas of [used, used - 1n, used / 2n].filter((g) => g > 0n)) {
        const { lean, full } = await both({ from, to, data, gas: gas + 21_000n + 16n * BigInt(data.length) });
        if (lean === undefined) continue; // under the calldata floor: runTx's error path
        assertSame(lean, full, `program ${n} with ${gas} execution gas`);
      }
    }
  });
});
