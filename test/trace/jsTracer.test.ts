/**
 * geth's JavaScript tracers over JSON-RPC: every member of the tracer API checked against what
 * geth documents (the step log against the struct logger's entries for the same transaction, the
 * frames against the callTracer's, `db` against eth_* reads, `ctx` against the receipt), geth's
 * named JS tracers' shapes, flatCallTracer, the sandbox against hostile tracers, and the shared
 * mode's lock.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createContractAddress, createContractAddress2, createAddressFromString, hexToBytes, bytesToHex } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { artifact, encodeCall } from './helpers.js';

let node: TestNode;
let from: string;
let callee: string;
let caller: string;
const txs: Record<string, string> = {};

const caller_ = artifact('Caller');
const callee_ = artifact('Callee');
const sel = (a: typeof caller_, sig: string) => a.methodIdentifiers[sig];

async function send(tx: Record<string, unknown>): Promise<string> {
  return node.rpc('eth_sendTransaction', [{ from, gas: '0x1e8480', ...tx }]);
}

before(async () => {
  node = await startTestNode();
  [from] = await node.rpc('eth_accounts');
  const sender = createAddressFromString(from);
  txs.deployCallee = await send({ data: callee_.bytecode });
  txs.deployCaller = await send({ data: caller_.bytecode });
  callee = createContractAddress(sender, 0n).toString();
  caller = createContractAddress(sender, 1n).toString();
  txs.callStore = await send({ to: caller, data: bytesToHex(encodeCall(sel(caller_, 'callStore(address,uint256)'), createAddressFromString(callee), 42n)) });
  txs.tryFail = await send({ to: caller, data: bytesToHex(encodeCall(sel(caller_, 'tryFail(address)'), createAddressFromString(callee))) });
  txs.tryBurn = await send({ to: caller, data: bytesToHex(encodeCall(sel(caller_, 'tryBurn(address)'), createAddressFromString(callee))) });
  txs.fail = await send({ to: callee, data: bytesToHex(encodeCall(sel(callee_, 'fail()'))) });
  txs.deploy2 = await send({ to: caller, value: '0x3e8', data: bytesToHex(encodeCall(sel(caller_, 'deploy(bytes32)'), 5n)) });
  txs.deployPlain = await send({ to: caller, value: '0x5', data: bytesToHex(encodeCall(sel(caller_, 'deployPlain()'))) });
});

after(async () => {
  await node?.close();
});

const trace = (hash: string, config: Record<string, unknown>) => node.rpc('debug_traceTransaction', [hash, config]);
const traceErr = (hash: string, config: Record<string, unknown>) => node.raw('debug_traceTransaction', [hash, config]);

test('step(log): op, pc, gas, cost, depth, refund, stack and memory match the struct logs', async () => {
  const tracer = `{
    rows: [],
    step: function (log, db) {
      var s = [];
      for (var i = log.stack.length() - 1; i >= 0; i--) s.push('0x' + log.stack.peek(i).toString(16));
      var m = [];
      for (var j = 0; j < log.memory.length(); j += 32) m.push(toHex(log.memory.slice(j, j + 32)).slice(2));
      var row = { pc: log.getPC(), op: log.op.toString(), n: log.op.toNumber(), push: log.op.isPush(), gas: log.getGas(), gasCost: log.getCost(), depth: log.getDepth(), stack: s, memory: m, err: log.getError() };
      if (log.getRefund() !== 0) row.refund = log.getRefund();
      if (log.memory.length() >= 32) row.word = '0x' + log.memory.getUint(0).toString(16);
      this.rows.push(row);
    },
    fault: function (log, db) {},
    result: function (ctx, db) { return this.rows; }
  }`;
  for (const name of ['callStore', 'tryFail', 'deploy2']) {
    const rows = (await trace(txs[name], { tracer })) as any[];
    const logs = ((await trace(txs[name], { enableMemory: true })) as any).structLogs as any[];
    assert.equal(rows.length, logs.length, `${name}: as many steps as struct logs`);
    for (let i = 0; i < logs.length; i++) {
      const l = logs[i];
      const r = rows[i];
      const want = { pc: l.pc, op: l.op, gas: l.gas, gasCost: l.gasCost, depth: l.depth, stack: l.stack.map((x: string) => '0x' + BigInt(x).toString(16)), memory: (l.memory ?? []).map((w: string) => w.replace(/^0x/, '')) };
      const got = { pc: r.pc, op: r.op, gas: r.gas, gasCost: r.gasCost, depth: r.depth, stack: r.stack, memory: r.memory };
      assert.deepEqual(got, want, `${name} step ${i}`);
      assert.equal(r.refund, l.refund, `${name} step ${i} refund`);
      assert.equal(r.push, /^PUSH/.test(l.op), `${name} step ${i} isPush`);
      assert.equal(r.err, undefined);
      if (r.word !== undefined) assert.equal(BigInt(r.word), BigInt(l.memory[0]));
    }
    assert.ok(rows.some((r) => r.op === 'PUSH1' && r.n === 0x60));
  }
});

test('log.contract: address, caller, value and input of the running frame', async () => {
  const tracer = `{
    seen: {},
    step: function (log, db) {
      var k = log.getDepth();
      if (this.seen[k]) return;
      this.seen[k] = { address: toHex(log.contract.getAddress()), caller: toHex(log.contract.getCaller()), value: log.contract.getValue().toString(), input: toHex(log.contract.getInput()) };
    },
    fault: function () {},
    result: function () { return this.seen; }
  }`;
  const seen = (await trace(txs.callStore, { tracer })) as any;
  const tx = await node.rpc('eth_getTransactionByHash', [txs.callStore]);
  assert.deepEqual(seen['1'], { address: caller, caller: from.toLowerCase(), value: '0', input: tx.input });
  assert.equal(seen['2'].address, callee);
  assert.equal(seen['2'].caller, caller);
  assert.equal(seen['2'].input.slice(0, 10), '0x' + callee_.methodIdentifiers['store(uint256)']);
  const v = (await trace(txs.deploy2, { tracer })) as any;
  assert.equal(v['1'].value, '1000', 'the call value as a bigInt');
});

test('enter(frame) / exit(frameResult) match the callTracer frames', async () => {
  const tracer = `{
    calls: [],
    enter: function (f) { this.calls.push({ type: f.getType(), from: toHex(f.getFrom()), to: toHex(f.getTo()), input: toHex(f.getInput()), gas: f.getGas(), value: f.getValue() === undefined ? null : '0x' + f.getValue().toString(16) }); },
    exit: function (r) { this.calls.push({ gasUsed: r.getGasUsed(), output: toHex(r.getOutput()), error: r.getError() === undefined ? null : r.getError() }); },
    fault: function () {},
    result: function () { return this.calls; }
  }`;
  for (const name of ['callStore', 'tryFail', 'deploy2', 'deployPlain']) {
    const got = (await trace(txs[name], { tracer })) as any[];
    const tree = (await trace(txs[name], { tracer: 'callTracer' })) as any;
    const want: any[] = [];
    const walk = (c: any) => {
      want.push({ type: c.type, from: c.from, to: c.to, input: c.input, gas: Number(c.gas), value: c.value ?? null });
      for (const s of c.calls ?? []) walk(s);
      want.push({ gasUsed: Number(c.gasUsed), output: c.output ?? '0x', error: c.error ?? null });
    };
    for (const s of tree.calls ?? []) walk(s);
    assert.deepEqual(got, want, name);
    assert.ok(got.length > 0, `${name} has inner frames`);
  }
});

test('fault(log, db) runs for a failing opcode, with log.getError()', async () => {
  const tracer = `{ faults: [], step: function () {}, fault: function (log, db) { this.faults.push([log.op.toString(), log.getDepth(), log.getError()]); }, result: function () { return this.faults; } }`;
  assert.deepEqual(await trace(txs.fail, { tracer }), [['REVERT', 1, 'execution reverted']]);
  assert.deepEqual(await trace(txs.tryFail, { tracer }), [['REVERT', 2, 'execution reverted']]);
  assert.deepEqual(await trace(txs.callStore, { tracer }), []);
  // Out of gas before an opcode runs: the struct logs put the error on that opcode's step.
  const logs = ((await trace(txs.tryBurn, {})) as any).structLogs as Array<{ op: string; depth: number; error?: string }>;
  const failed = logs.filter((l) => l.error !== undefined).map((l) => [l.op, l.depth, l.error]);
  assert.equal(failed.length, 1);
  assert.deepEqual(await trace(txs.tryBurn, { tracer }), failed);
});

test('result(ctx, db): ctx as geth fills it, db reads the state', async () => {
  const tracer = `{
    fault: function () {},
    result: function (ctx, db) {
      return { type: ctx.type, from: toHex(ctx.from), to: toHex(ctx.to), input: toHex(ctx.input), gas: ctx.gas, gasUsed: ctx.gasUsed,
        gasPrice: ctx.gasPrice.toString(), value: ctx.value.toString(), block: ctx.block, output: toHex(ctx.output), error: ctx.error === undefined ? null : ctx.error,
        intrinsicGas: ctx.intrinsicGas, coinbase: toHex(ctx.coinbase), blockHash: toHex(ctx.blockHash), txIndex: ctx.txIndex, txHash: toHex(ctx.txHash), time: typeof ctx.time,
        balance: db.getBalance(ctx.from).toString(16), nonce: db.getNonce(ctx.from), code: toHex(db.getCode(ctx.to)), slot0: toHex(db.getState(ctx.to, toWord('0x00'))),
        exists: db.exists(ctx.to), ghost: db.exists(toAddress('0x1234')) };
    }
  }`;
  const r = (await trace(txs.fail, { tracer })) as any;
  const tx = await node.rpc('eth_getTransactionByHash', [txs.fail]);
  const rc = await node.rpc('eth_getTransactionReceipt', [txs.fail]);
  const block = await node.rpc('eth_getBlockByHash', [rc.blockHash, false]);
  assert.equal(r.type, 'CALL');
  assert.equal(r.from, from.toLowerCase());
  assert.equal(r.to, callee);
  assert.equal(r.input, tx.input);
  assert.equal(r.gas, Number(tx.gas));
  assert.equal(r.gasUsed, Number(rc.gasUsed));
  assert.equal(BigInt(r.gasPrice), BigInt(rc.effectiveGasPrice));
  assert.equal(r.value, '0');
  assert.equal(r.block, Number(rc.blockNumber));
  assert.equal(r.error, 'execution reverted');
  assert.equal(r.intrinsicGas, 21000 + 16 * 4);
  assert.equal(r.coinbase, block.miner);
  assert.equal(r.blockHash, rc.blockHash);
  assert.equal(r.txIndex, Number(rc.transactionIndex));
  assert.equal(r.txHash, txs.fail);
  assert.equal(r.time, 'string');
  // The block has only this transaction: the state after it is the state at its block.
  assert.equal('0x' + r.balance, await node.rpc('eth_getBalance', [from, rc.blockNumber]));
  assert.equal(r.nonce, Number(await node.rpc('eth_getTransactionCount', [from, rc.blockNumber])));
  assert.equal(r.code, await node.rpc('eth_getCode', [callee, rc.blockNumber]));
  assert.equal(r.slot0, await node.rpc('eth_getStorageAt', [callee, '0x0', rc.blockNumber]));
  assert.equal(r.exists, true);
  assert.equal(r.ghost, false);
  const ok = (await trace(txs.callStore, { tracer })) as any;
  assert.equal(ok.error, null);
});

test('helpers: toHex, toWord, toAddress, toContract, toContract2, isPrecompiled, slice, bigInt', async () => {
  const tracer = `{
    fault: function () {},
    result: function (ctx) {
      var b = bigInt('ff', 16).add(1).multiply(bigInt(2)).subtract(2);
      return { hex: toHex([1, 2, 255]), word: toHex(toWord('0x1234')), addr: toHex(toAddress('0x00112233445566778899aabbccddeeff0011223344')),
        c1: toHex(toContract(ctx.from, 7)), c2: toHex(toContract2(ctx.from, '0x05', [0x60, 0x00])),
        pre: [isPrecompiled(toAddress('0x01')), isPrecompiled(toAddress('0x0a')), isPrecompiled(toAddress('0x1234'))],
        slice: toHex(slice([1, 2, 3, 4], 1, 3)), big: b.toString(), cmp: [b.gt(500), b.eq(510), b.lt(0), b.isZero()], json: bigInt(12) };
    }
  }`;
  const r = (await trace(txs.callStore, { tracer })) as any;
  const sender = createAddressFromString(from);
  assert.equal(r.hex, '0x0102ff');
  assert.equal(r.word, '0x' + '1234'.padStart(64, '0'));
  assert.equal(r.addr, '0x112233445566778899aabbccddeeff0011223344');
  assert.equal(r.c1, createContractAddress(sender, 7n).toString());
  assert.equal(r.c2, createContractAddress2(sender, hexToBytes(`0x${'05'.padStart(64, '0')}`), hexToBytes('0x6000')).toString());
  assert.deepEqual(r.pre, [true, true, false]);
  assert.equal(r.slice, '0x0203');
  assert.equal(r.big, '510');
  assert.deepEqual(r.cmp, [true, true, false, false]);
  assert.equal(r.json, '12', 'a bigInt marshals as its decimal string');
  const bad = await traceErr(txs.callStore, { tracer: '{fault: function(){}, result: function(){ return slice([1], 0, 5) }}' });
  assert.match(bad.error!.message, /^Error: Tracer accessed out of bound memory: available 1, offset 0, size 5    in server-side tracer function 'result'/);
  void keccak_256;
});

test('setup(config) gets the tracerConfig as JSON text', async () => {
  const tracer = `{ cfg: null, setup: function (c) { this.cfg = [typeof c, JSON.parse(c)]; }, fault: function () {}, result: function () { return this.cfg; } }`;
  assert.deepEqual(await trace(txs.callStore, { tracer, tracerConfig: { a: 1, b: 'x' } }), ['string', { a: 1, b: 'x' }]);
  assert.deepEqual(await trace(txs.callStore, { tracer }), ['string', {}]);
});

test("a tracer's errors answer geth's messages", async () => {
  const cases: Array<[string, RegExp]> = [
    ['{fault: function(){}}', /^trace object must expose a function result\(\)$/],
    ['{result: function(){}}', /^trace object must expose a function fault\(\)$/],
    ['{result: function(){}, fault: function(){}, enter: function(){}}', /^trace object must expose either both or none of enter\(\) and exit\(\)$/],
    ['{step: function(log){ log.stack.peek(9) }, fault: function(){}, result: function(){}}', /^Error: tracer accessed out of bound stack: size 0, index 9    in server-side tracer function 'step'$/],
    ['{step: function(){ throw new Error("boom") }, fault: function(){}, result: function(){}}', /^Error: boom    in server-side tracer function 'step'$/],
    ['{fault: function(){}, result: function(){ return undefinedThing.x }}', /^ReferenceError: undefinedThing is not defined    in server-side tracer function 'result'$/],
    ['{fault: function(){}, result: function(', /^SyntaxError/],
    // Steps go in batches unless the source names db's methods: a read the batch cannot serve fails loudly.
    ['{step: function(log, d){ d["get" + "Balance"](toAddress("0x01")) }, fault: function(){}, result: function(){}}', /^Error: db can be read in step\(\) only by a tracer whose source names its methods/],
  ];
  for (const [tracer, want] of cases) {
    const r = await traceErr(txs.callStore, { tracer });
    assert.equal(r.error?.code, -32000, tracer);
    assert.match(r.error!.message, want, tracer);
  }
  // A bare unknown name is still an unknown tracer.
  assert.equal((await traceErr(txs.callStore, { tracer: 'nosuchTracer' })).error?.code, -32602);
});

test('debug_traceCall and debug_traceBlockByNumber run JavaScript tracers', async () => {
  const tracer = `{ n: 0, step: function () { this.n++; }, fault: function () {}, result: function (ctx) {
    return { n: this.n, type: ctx.type, to: toHex(ctx.to), block: ctx.block, hash: ctx.blockHash === undefined, value: ctx.value.toString(), out: toHex(ctx.output) }; } }`;
  const data = '0x' + callee_.methodIdentifiers['stored()'];
  const head = Number(await node.rpc('eth_blockNumber'));
  const r = (await node.rpc('debug_traceCall', [{ from, to: callee, data }, 'latest', { tracer }])) as any;
  assert.equal(r.type, 'CALL');
  assert.equal(r.to, callee);
  assert.equal(r.block, head, 'a call at latest runs in its block, as geth');
  assert.equal(r.hash, true, 'a call has no block hash in ctx');
  assert.equal(r.out, await node.rpc('eth_call', [{ from, to: callee, data }, 'latest']));
  assert.ok(r.n > 0);
  // With a state override: the stored value the tracer sees is the overridden one.
  const slot = '0x' + '0'.repeat(64);
  const over = (await node.rpc('debug_traceCall', [{ from, to: callee, data }, 'latest', { tracer, stateOverrides: { [callee]: { stateDiff: { [slot]: '0x' + '9'.padStart(64, '0') } } } }])) as any;
  assert.equal(BigInt(over.out), 9n);
  const rc = await node.rpc('eth_getTransactionReceipt', [txs.callStore]);
  const block = (await node.rpc('debug_traceBlockByNumber', [rc.blockNumber, { tracer }])) as any[];
  assert.equal(block.length, 1);
  assert.equal(block[0].txHash, txs.callStore);
  assert.equal(block[0].result.block, Number(rc.blockNumber));
  assert.equal(block[0].result.n, await trace(txs.callStore, { tracer: 'opcountTracer' }));
});
