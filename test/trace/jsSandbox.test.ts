/**
 * JavaScript tracers' sandbox (no require, process, timers, code from strings; a time and heap
 * bound; the node keeps serving), hooks only when asked, geth's named JS tracers' shapes,
 * flatCallTracer, and the shared mode's lock (--allow-js-tracers).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bytesToHex, createAddressFromString, createContractAddress } from '@ethereumjs/util';
import { startCli } from '../support/cli.js';
import { startTestNode, type TestNode } from '../support/node.js';
import { artifact, encodeCall } from './helpers.js';

let node: TestNode;
let from: string;
const txs: Record<string, string> = {};
const caller_ = artifact('Caller');
const callee_ = artifact('Callee');

before(async () => {
  node = await startTestNode();
  [from] = await node.rpc('eth_accounts');
  const send = (tx: Record<string, unknown>) => node.rpc('eth_sendTransaction', [{ from, gas: '0x1e8480', ...tx }]);
  await send({ data: callee_.bytecode });
  await send({ data: caller_.bytecode });
  const sender = createAddressFromString(from);
  const callee = createContractAddress(sender, 0n);
  const caller = createContractAddress(sender, 1n).toString();
  txs.callStore = await send({ to: caller, data: bytesToHex(encodeCall(caller_.methodIdentifiers['callStore(address,uint256)'], callee, 42n)) });
  txs.tryFail = await send({ to: caller, data: bytesToHex(encodeCall(caller_.methodIdentifiers['tryFail(address)'], callee)) });
  // STATICCALLs the identity and sha256 precompiles.
  const pre = '7f48656c6c6f000000000000000000000000000000000000000000000000000000600052' + '6020600060206000600461fffffa50' + '6020600060206000600261fffffa50' + '00';
  const len = (pre.length / 2).toString(16).padStart(2, '0');
  await send({ data: `0x60${len}600c60003960${len}6000f3${pre}` });
  txs.precompiles = await send({ to: createContractAddress(sender, 4n).toString() });
});

after(async () => {
  await node?.close();
});

const traceErr = (hash: string, config: Record<string, unknown>) => node.raw('debug_traceTransaction', [hash, config]);
const trace = (hash: string, config: Record<string, unknown>) => node.rpc('debug_traceTransaction', [hash, config]);

test('hostile tracers are stopped and answered with an error; the node keeps serving', async () => {
  const result = (body: string) => `{fault: function(){}, result: function(){ ${body} }}`;
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['infinite loop in step', { tracer: '{step: function(){ for(;;){} }, fault: function(){}, result: function(){ return 1 }}', timeout: '300ms' }, /^execution timeout$/],
    ['infinite loop in result', { tracer: result('for(;;){}'), timeout: '300ms' }, /^execution timeout$/],
    ['infinite loop building the object', { tracer: '{x: (function(){ for(;;){} })(), fault: function(){}, result: function(){}}', timeout: '300ms' }, /^execution timeout$/],
    ['huge allocation', { tracer: result('var a = []; for (;;) a.push(new Array(100000).fill(7));'), timeout: '60s' }, /^tracer exceeded its memory limit \(256 MB\)$/],
    ['huge byte arrays (outside the heap)', { tracer: result('var a = []; for (var i = 0; i < 64; i++) a.push(new Uint8Array(1 << 28).fill(1));'), timeout: '60s' }, /^RangeError: tracer exceeded its memory limit \(256 MB\)/],
    ['huge byte arrays through a constructor property', { tracer: result('var C = toWord("0x01").constructor, B = toWord("0x01").buffer.constructor; var a = []; for (var i = 0; i < 64; i++) { a.push(new C(1 << 27)); a.push(new B(1 << 27)); }'), timeout: '60s' }, /^RangeError: tracer exceeded its memory limit \(256 MB\)/],
    ['constructor escape', { tracer: result('return this.constructor.constructor("return process")()') }, /^EvalError: Code generation from strings disallowed/],
    ['escape through a log object', { tracer: '{step: function(log){ log.op.constructor.constructor("return process")() }, fault: function(){}, result: function(){}}' }, /^EvalError: Code generation from strings disallowed/],
    ['escape through a bigInt', { tracer: result('return bigInt(1).constructor.constructor("return process")()') }, /^EvalError: Code generation from strings disallowed/],
    ['eval', { tracer: result('return eval("1+1")') }, /^EvalError: Code generation from strings disallowed/],
    ['require', { tracer: result('return require("fs")') }, /^ReferenceError: require is not defined/],
    ['process', { tracer: result('return process.pid') }, /^ReferenceError: process is not defined/],
    ['timers', { tracer: result('setTimeout(function(){}, 1)') }, /^ReferenceError: setTimeout is not defined/],
    ['network', { tracer: result('fetch("http://127.0.0.1:1")') }, /^ReferenceError: fetch is not defined/],
    ['shared memory', { tracer: result('return new SharedArrayBuffer(8)') }, /^ReferenceError: SharedArrayBuffer is not defined/],
  ];
  for (const [name, config, want] of cases) {
    const r = await traceErr(txs.callStore, config);
    assert.ok(r.error, `${name}: answered with an error`);
    assert.match(r.error.message, want, name);
    // The node answers at once, and traces again.
    assert.match(await node.rpc('eth_blockNumber'), /^0x/);
  }
  assert.equal(await trace(txs.callStore, { tracer: 'opcountTracer' }), ((await trace(txs.callStore, {})) as any).structLogs.length);
});

test('the node serves other requests while a slow tracer runs', async () => {
  // Order, not a time bound: the other answers come while the tracer still runs (it ends only at
  // its timeout), where a node blocked by it would answer them after the trace's own answer.
  let traceAnswered = false;
  const slow = traceErr(txs.callStore, { tracer: '{step: function(){ for(;;){} }, fault: function(){}, result: function(){}}', timeout: '5s' }).then((r) => {
    traceAnswered = true;
    return r;
  });
  await node.rpc('eth_blockNumber');
  await node.rpc('eth_getBalance', [from, 'latest']);
  assert.equal(traceAnswered, false, 'other requests were answered while the tracer ran');
  assert.match((await slow).error!.message, /^execution timeout$/);
});

test("a tracer without step is not called per opcode (hooks only when asked)", async () => {
  // enter/exit only: frames arrive, steps do not (a step would fail the trace).
  const tracer = `{ n: 0, enter: function () { this.n++; }, exit: function () {}, fault: function () {}, result: function () { return this.n; } }`;
  assert.equal(await trace(txs.callStore, { tracer }), 1);
});

test("geth's named JS tracers: shapes", async () => {
  const steps = ((await trace(txs.callStore, {})) as any).structLogs as Array<{ op: string; depth: number }>;
  const ops = steps.map((s) => s.op);
  assert.equal(await trace(txs.callStore, { tracer: 'opcountTracer' }), ops.length);
  const count = (keys: string[]) => keys.reduce<Record<string, number>>((m, k) => ((m[k] = (m[k] ?? 0) + 1), m), {});
  assert.deepEqual(await trace(txs.callStore, { tracer: 'unigramTracer' }), count(ops));
  // Pairs and triples within one depth; the step where the depth changes starts over.
  const pairs: string[] = [];
  const triples: string[] = [];
  let last: [string, string] = ['', ''];
  steps.forEach((s, i) => {
    if (i > 0 && steps[i - 1].depth === s.depth) pairs.push(`${steps[i - 1].op}-${s.op}`);
    if (i === 0 || steps[i - 1].depth !== s.depth) last = ['', ''];
    else {
      triples.push(`${last[0]}-${last[1]}-${s.op}`);
      last = [last[1], s.op];
    }
  });
  assert.deepEqual(await trace(txs.callStore, { tracer: 'bigramTracer' }), count(pairs));
  assert.deepEqual(await trace(txs.callStore, { tracer: 'trigramTracer' }), count(triples));
  const dis = (await trace(txs.callStore, { tracer: 'evmdisTracer' })) as any[];
  assert.ok(Array.isArray(dis) && dis.length > 0);
  assert.deepEqual(Object.keys(dis[0]).sort(), ['depth', 'len', 'op', 'result']);
  assert.equal(dis[0].op, 0x60);
  assert.deepEqual(dis[0].result, ['80'], 'PUSH1 0x80 pushed 0x80');
  const call = dis.find((o) => o.op === 0xf1);
  assert.ok(call, 'the CALL is listed with its frame');
  assert.ok(call.ops.length > 0 && call.ops.every((o: any) => o.depth === 2));
  assert.equal(call.to, createContractAddress(createAddressFromString(from), 0n).toString().slice(2).replace(/^0+/, ''));
  assert.equal(dis.filter((o) => o.depth === 1).length + call.ops.length, ops.length - 1, 'every step but the one returning to depth 1');
});

test('flatCallTracer: geth output, convertParityErrors, includePrecompiles', async () => {
  const flat = (await trace(txs.tryFail, { tracer: 'flatCallTracer' })) as any[];
  const tree = (await trace(txs.tryFail, { tracer: 'callTracer' })) as any;
  const rc = await node.rpc('eth_getTransactionReceipt', [txs.tryFail]);
  assert.equal(flat.length, 1 + (tree.calls?.length ?? 0));
  assert.deepEqual(flat[0], {
    action: { callType: 'call', from: tree.from, gas: tree.gas, input: tree.input, to: tree.to, value: '0x0' },
    blockHash: rc.blockHash,
    blockNumber: Number(rc.blockNumber),
    result: { gasUsed: tree.gasUsed, output: tree.output ?? '0x' },
    subtraces: 1,
    traceAddress: [],
    transactionHash: txs.tryFail,
    transactionPosition: Number(rc.transactionIndex),
    type: 'call',
  });
  const inner = tree.calls[0];
  assert.deepEqual(flat[1].action, { callType: 'staticcall', from: inner.from, gas: inner.gas, input: inner.input, to: inner.to, value: '0x0' }, 'an inner frame has a value, zero for a static call');
  assert.equal(flat[1].error, 'execution reverted');
  assert.deepEqual(flat[1].result, { gasUsed: inner.gasUsed, output: inner.output }, 'a revert keeps its output');
  assert.deepEqual(flat[1].traceAddress, [0]);
  const parity = (await trace(txs.tryFail, { tracer: 'flatCallTracer', tracerConfig: { convertParityErrors: true } })) as any[];
  assert.equal(parity[1].error, 'Reverted');
  const noPre = (await trace(txs.precompiles, { tracer: 'flatCallTracer' })) as any[];
  assert.equal(noPre.length, 1);
  assert.equal(noPre[0].subtraces, 0);
  const withPre = (await trace(txs.precompiles, { tracer: 'flatCallTracer', tracerConfig: { includePrecompiles: true } })) as any[];
  assert.deepEqual(withPre.map((f) => [f.action.callType, f.action.to, f.traceAddress]), [
    ['call', withPre[0].action.to, []],
    ['staticcall', '0x0000000000000000000000000000000000000004', [0]],
    ['staticcall', '0x0000000000000000000000000000000000000002', [1]],
  ]);
  assert.equal(withPre[1].action.value, '0x0');
  // A call has no block hash or transaction hash (null, as geth), and its block's number.
  const call = (await node.rpc('debug_traceCall', [{ from, to: withPre[0].action.to }, 'latest', { tracer: 'flatCallTracer' }])) as any[];
  assert.equal(call[0].blockHash, null);
  assert.equal(call[0].transactionHash, null);
  assert.equal(call[0].blockNumber, Number(await node.rpc('eth_blockNumber')));
  const bad = await traceErr(txs.tryFail, { tracer: 'flatCallTracer', tracerConfig: { nope: true } });
  assert.equal(bad.error?.code, -32602);
});

test('a shared node refuses JavaScript tracers unless --allow-js-tracers', async () => {
  for (const allow of [false, true]) {
    const shared = await startTestNode({ shared: true, host: '127.0.0.1', unlock: true, allowJsTracers: allow });
    try {
      const [a] = await shared.rpc('eth_accounts');
      const h = await shared.rpc('eth_sendTransaction', [{ from: a, to: a, value: '0x1' }]);
      for (const tracer of ['opcountTracer', '{fault: function(){}, result: function(){ return 5 }}']) {
        const r = await shared.raw('debug_traceTransaction', [h, { tracer }]);
        if (allow) assert.equal(r.error, undefined, tracer);
        else {
          assert.equal(r.error?.code, -32000);
          assert.match(r.error!.message, /--allow-js-tracers/);
        }
        const c = await shared.raw('debug_traceCall', [{ from: a, to: a }, 'latest', { tracer }]);
        assert.equal(c.error === undefined, allow, `debug_traceCall ${tracer}`);
      }
      assert.ok(Array.isArray(await shared.rpc('debug_traceTransaction', [h, { tracer: 'flatCallTracer' }])), 'native tracers stay open');
    } finally {
      await shared.close();
    }
  }
});

test('the command (its bundle) runs JavaScript tracers; --allow-js-tracers opens them on --public', async () => {
  const cli = await startCli(['--public', '--host', '127.0.0.1', '--unlock', '--allow-js-tracers']);
  try {
    const [a] = await cli.rpc('eth_accounts');
    const h = await cli.rpc('eth_sendTransaction', [{ from: a, data: '0x6001600055600054600052602060006000f3' }]);
    const steps = ((await cli.rpc('debug_traceTransaction', [h, {}])) as any).structLogs.length;
    assert.equal(await cli.rpc('debug_traceTransaction', [h, { tracer: 'opcountTracer' }]), steps);
    const tracer = `{ r: [], step: function (log, db) { if (log.op.toString() === 'RETURN') this.r.push(log.stack.peek(2).toString(), toHex(log.memory.slice(0, 32)), db.getBalance(log.contract.getCaller()).isZero()); }, fault: function () {}, result: function () { return this.r; } }`;
    assert.deepEqual(await cli.rpc('debug_traceTransaction', [h, { tracer }]), ['32', '0x' + '1'.padStart(64, '0'), false]);
  } finally {
    await cli.stop();
  }
});
