/** Tracer behaviour on a bare VM (checked against geth's documented formats). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAddressFromString, createContractAddress, hexToBytes } from '@ethereumjs/util';
import { ChainError } from '../../src/chain/core/errors.js';
import { unpackRevert } from '../../src/trace/index.js';
import { structLogJson } from '../../src/format/stream.js';
import type { StructLogEntry } from '../../src/trace/structLogger.js';
import { SENDER, TestChain, artifact, encodeCall, json } from './helpers.js';

const callee = artifact('Callee');
const caller = artifact('Caller');
const CALLEE = createContractAddress(SENDER, 0n);
const CALLER = createContractAddress(SENDER, 1n);
const sel = (sig: string) => caller.methodIdentifiers[sig];

async function deployed(): Promise<TestChain> {
  const chain = await TestChain.create(createAddressFromString('0x00000000000000000000000000000000000c0ffe'));
  await chain.send({ data: hexToBytes(callee.bytecode as `0x${string}`) });
  await chain.send({ data: hexToBytes(caller.bytecode as `0x${string}`) });
  return chain;
}

test('callTracer: nested CALL with logs, positions and block log indexes', async () => {
  const chain = await deployed();
  const tx = chain.tx({ to: CALLER, data: encodeCall(sel('callStore(address,uint256)'), CALLEE, 42n) });
  const run = (cfg: unknown, logIndexOffset?: number) =>
    chain.vm.evm.journal.checkpoint().then(async () => {
      try {
        return json(await chain.traceOnly(tx, cfg, logIndexOffset));
      } finally {
        await chain.vm.evm.journal.revert();
      }
    });
  const full = await run({ tracer: 'callTracer', tracerConfig: { withLog: true } }, 7);
  assert.equal(full.type, 'CALL');
  assert.equal(full.gas, '0xf4240');
  assert.equal(full.calls.length, 1);
  const sub = full.calls[0];
  assert.deepEqual(Object.keys(sub), ['from', 'gas', 'gasUsed', 'to', 'input', 'output', 'logs', 'value', 'type']);
  assert.equal(sub.from, CALLER.toString());
  assert.equal(sub.to, CALLEE.toString());
  assert.equal(sub.output, `0x${(84).toString(16).padStart(64, '0')}`);
  assert.deepEqual(sub.logs.map((l: any) => [l.index, l.position]), [['0x7', '0x0']]);
  const top = await run({ tracer: 'callTracer', tracerConfig: { onlyTopCall: true, withLog: true } });
  assert.equal(top.calls, undefined);
  assert.equal(top.logs, undefined, 'the only log is in a sub-call');
});

test('callTracer: caught revert carries error, output and revertReason; logs of failed frames are dropped', async () => {
  const chain = await deployed();
  const tx = chain.tx({ to: CALLER, data: encodeCall(sel('tryFail(address)'), CALLEE) });
  const { results } = await chain.traceAndSend(tx, [{ tracer: 'callTracer', tracerConfig: { withLog: true } }]);
  const r = json(results[0]);
  assert.equal(r.error, undefined);
  assert.equal(r.calls[0].error, 'execution reverted');
  assert.equal(r.calls[0].revertReason, 'callee failed');
  assert.equal(r.logs.length, 1, 'the Caught event of the outer frame is kept');
  assert.equal(r.logs[0].position, '0x1', 'emitted after the sub-call');
});

test('callTracer: inner out-of-gas frame', async () => {
  const chain = await deployed();
  const tx = chain.tx({ to: CALLER, data: encodeCall(sel('tryBurn(address)'), CALLEE) });
  const { results } = await chain.traceAndSend(tx, [{ tracer: 'callTracer' }, {}]);
  const r = json(results[0]);
  assert.match(r.calls[0].error, /^out of gas/);
  assert.equal(r.calls[0].gas, r.calls[0].gasUsed);
  assert.equal(r.calls[0].gas, `0x${(50000).toString(16)}`);
  const logs = json(results[1]).structLogs;
  const faulted = logs.filter((l: any) => l.error !== undefined);
  assert.equal(faulted.length, 1);
  assert.equal(faulted[0].depth, 2);
  assert.match(faulted[0].error, /^out of gas/);
  assert.deepEqual(Object.keys(faulted[0]).slice(0, 6), ['pc', 'op', 'gas', 'gasCost', 'depth', 'error']);
});

test('struct logger options: disableStack, disableStorage, enableReturnData, limit', async () => {
  const chain = await deployed();
  const tx = chain.tx({ to: CALLER, data: encodeCall(sel('callStore(address,uint256)'), CALLEE, 1n) });
  const { results } = await chain.traceAndSend(tx, [{}, { disableStack: true, disableStorage: true }, { enableReturnData: true }, { limit: 7 }]);
  const [plain, bare, rd, limited] = results.map(json);
  assert.equal(plain.failed, false);
  assert.equal(plain.returnValue, `0x${(2n).toString(16).padStart(64, '0')}`);
  const sstore = plain.structLogs.find((l: any) => l.op === 'SSTORE');
  assert.deepEqual(sstore.storage, { [`0x${'0'.repeat(64)}`]: `0x${'1'.padStart(64, '0')}` });
  assert.ok(bare.structLogs.every((l: any) => l.stack === undefined && l.storage === undefined));
  assert.ok(rd.structLogs.some((l: any) => typeof l.returnData === 'string' && l.returnData.startsWith('0x')));
  assert.ok(plain.structLogs.every((l: any) => l.returnData === undefined && l.memory === undefined));
  // geth's limit counts steps: the first seven, as recorded without it.
  assert.ok(plain.structLogs.length > 7);
  assert.deepEqual(limited.structLogs, plain.structLogs.slice(0, 7));
});

test('prestateTracer options: disableCode, disableStorage, includeEmpty', async () => {
  const chain = await deployed();
  const tx = chain.tx({ to: CALLER, data: encodeCall(sel('callStore(address,uint256)'), CALLEE, 3n) });
  const { results } = await chain.traceAndSend(tx, [
    { tracer: 'prestateTracer' },
    { tracer: 'prestateTracer', tracerConfig: { disableCode: true, disableStorage: true } },
  ]);
  const [plain, slim] = results.map(json);
  assert.ok(plain[CALLEE.toString()].code.startsWith('0x60'));
  assert.ok(plain[CALLEE.toString()].codeHash.startsWith('0x'));
  assert.equal(slim[CALLEE.toString()].code, undefined);
  assert.equal(slim[CALLEE.toString()].storage, undefined);
  assert.equal(slim[CALLEE.toString()].codeHash, plain[CALLEE.toString()].codeHash);
  assert.equal(plain[SENDER.toString()].nonce, 2);

  // An account that was empty before the transaction only shows with includeEmpty.
  const fresh = '0x000000000000000000000000000000000000dead';
  const transfer = chain.tx({ to: createAddressFromString(fresh), value: 1n });
  const out = await chain.traceAndSend(transfer, [{ tracer: 'prestateTracer' }, { tracer: 'prestateTracer', tracerConfig: { includeEmpty: true } }]);
  const [pruned, withEmpty] = out.results.map(json);
  assert.equal(pruned[fresh], undefined);
  assert.deepEqual(withEmpty[fresh], { balance: '0x0' });
});

test('muxTracer and noopTracer', async () => {
  const chain = await deployed();
  const tx = chain.tx({ to: CALLER, data: encodeCall(sel('staticWhoami(address)'), CALLEE) });
  const { results } = await chain.traceAndSend(tx, [
    { tracer: 'muxTracer', tracerConfig: { callTracer: {}, prestateTracer: { diffMode: true }, '4byteTracer': null } },
    { tracer: 'callTracer' },
    { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
    { tracer: '4byteTracer' },
    { tracer: 'noopTracer' },
  ]);
  const [mux, calls, pre, fourByte, noop] = results.map(json);
  assert.deepEqual(Object.keys(mux), ['4byteTracer', 'callTracer', 'prestateTracer']);
  assert.deepEqual(mux.callTracer, calls);
  assert.deepEqual(mux.prestateTracer, pre);
  assert.deepEqual(mux['4byteTracer'], fourByte);
  assert.deepEqual(fourByte, { [`${sel('staticWhoami(address)')}-32`.replace(/^/, '0x')]: 1, '0xb3b36bb3-0': 1 });
  assert.deepEqual(noop, {});
  assert.equal(calls.calls[0].type, 'STATICCALL');
  assert.equal(calls.calls[0].value, undefined);
});

test('timeout aborts with "execution timeout" and detaches the hooks', async () => {
  const chain = await TestChain.create();
  // Loop of 60000 iterations.
  await chain.send({ data: hexToBytes('0x600d600c600039600d6000f361ea605b600190038060035700') });
  const loop = createContractAddress(SENDER, 0n);
  const tx = chain.tx({ to: loop, gasLimit: 10_000_000n });
  await chain.vm.evm.journal.checkpoint();
  await assert.rejects(
    chain.traceOnly(tx, { timeout: '1ms' }),
    (err: unknown) => err instanceof ChainError && err.message === 'execution timeout',
  );
  await chain.vm.evm.journal.revert();
  const events = chain.vm.evm.events!;
  assert.equal(events.listenerCount('step'), 0);
  assert.equal(events.listenerCount('beforeMessage'), 0);
  assert.equal(events.listenerCount('afterMessage'), 0);
});

test('unpackRevert decodes Error(string) and Panic(uint256) like geth', () => {
  const err = hexToBytes(
    '0x08c379a00000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000000000000000000000000000000000a75736572206572726f72',
  );
  assert.equal(unpackRevert(err), 'user error');
  const panic = (code: number) => hexToBytes(`0x4e487b71${code.toString(16).padStart(64, '0')}`);
  assert.equal(unpackRevert(panic(0x11)), 'arithmetic underflow or overflow');
  assert.equal(unpackRevert(panic(0x99)), 'unknown panic code: 0x99');
  assert.equal(unpackRevert(hexToBytes('0x08c379a0')), undefined);
  assert.equal(unpackRevert(hexToBytes('0xdeadbeef')), undefined);
});

test('struct logs are written field by field exactly as JSON.stringify writes them', async () => {
  const chain = await deployed();
  const burn = chain.tx({ to: CALLER, data: encodeCall(sel('tryBurn(address)'), CALLEE) });
  const burnt = await chain.traceAndSend(burn, [{ enableMemory: true, enableReturnData: true }]);
  const store = chain.tx({ to: CALLER, data: encodeCall(sel('callStore(address,uint256)'), CALLEE, 0n) });
  const stored = await chain.traceAndSend(store, [{ enableMemory: true, enableReturnData: true }, { disableStack: true }]);
  const entries = [...burnt.results, ...stored.results].flatMap((r) => (r as { structLogs: StructLogEntry[] }).structLogs);
  // A made-up entry with every optional field, including text that needs escaping.
  entries.push({ pc: 1, op: 'SSTORE', gas: 2, gasCost: 3, depth: 4, error: 'bad "quote"\n', stack: [], returnData: '0x', memory: [], storage: {}, refund: 4800 });
  for (const field of ['error', 'stack', 'returnData', 'memory', 'storage']) {
    assert.ok(entries.slice(0, -1).some((e) => (e as unknown as Record<string, unknown>)[field] !== undefined), `a traced entry has ${field}`);
  }
  for (const e of entries) assert.equal(structLogJson(e), JSON.stringify(e));
});
