import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChainError } from '../../src/chain/core/errors.js';
import { parseGoDuration, parseTraceConfig } from '../../src/trace/index.js';

function rejects(raw: unknown, pattern: RegExp): void {
  assert.throws(
    () => parseTraceConfig(raw),
    (err: unknown) => err instanceof ChainError && err.code === -32602 && pattern.test(err.message),
    `expected ${JSON.stringify(raw)} to be rejected with ${pattern}`,
  );
}

test('defaults to the struct logger with a 5s timeout', () => {
  for (const raw of [undefined, null, {}]) {
    const c = parseTraceConfig(raw);
    assert.equal(c.tracer.name, 'structLogger');
    assert.equal(c.timeoutMs, 5000);
  }
  const c = parseTraceConfig({ enableMemory: true, disableStack: true, disableStorage: true, enableReturnData: true, limit: 100 });
  assert.deepEqual(c.tracer, {
    name: 'structLogger',
    options: { enableMemory: true, disableStack: true, disableStorage: true, enableReturnData: true, limit: 100 },
  });
});

test('named tracers and their configs', () => {
  assert.deepEqual(parseTraceConfig({ tracer: 'callTracer', tracerConfig: { onlyTopCall: true, withLog: true } }).tracer, {
    name: 'callTracer',
    options: { onlyTopCall: true, withLog: true },
  });
  assert.deepEqual(parseTraceConfig({ tracer: 'prestateTracer', tracerConfig: { diffMode: true, disableCode: true } }).tracer, {
    name: 'prestateTracer',
    options: { diffMode: true, disableCode: true, disableStorage: false, includeEmpty: false },
  });
  assert.equal(parseTraceConfig({ tracer: '4byteTracer' }).tracer.name, '4byteTracer');
  assert.equal(parseTraceConfig({ tracer: 'noopTracer', tracerConfig: {} }).tracer.name, 'noopTracer');
  const mux = parseTraceConfig({ tracer: 'muxTracer', tracerConfig: { prestateTracer: { diffMode: true }, callTracer: null } }).tracer;
  assert.equal(mux.name, 'muxTracer');
  if (mux.name === 'muxTracer') assert.deepEqual(mux.tracers.map((t) => t.key), ['callTracer', 'prestateTracer']);
  // Go's encoding/json matches field names case-insensitively.
  const ci = parseTraceConfig({ Tracer: 'callTracer', TRACERCONFIG: { onlytopcall: true } }).tracer;
  assert.deepEqual(ci, { name: 'callTracer', options: { onlyTopCall: true, withLog: false } });
});

test('debug_traceCall extras are accepted and left to the chain', () => {
  const c = parseTraceConfig({ tracer: 'callTracer', stateOverrides: { '0x00000000000000000000000000000000000000aa': { balance: '0x1' } }, blockOverrides: { number: '0x5' }, txIndex: '0x1', reexec: 128 });
  assert.equal(c.tracer.name, 'callTracer');
});

test('invalid configs are rejected with -32602 naming the culprit', () => {
  rejects('callTracer', /must be an object/);
  rejects({ tracer: 'bogusTracer' }, /unknown tracer "bogusTracer"/);
  rejects({ tracer: 42 }, /"tracer" must be a string/);
  rejects({ disableMemory: true }, /unknown option "disableMemory"/);
  rejects({ enableMemory: 'yes' }, /"enableMemory" must be a boolean/);
  rejects({ limit: 1.5 }, /"limit" must be a non-negative integer/);
  rejects({ timeout: 'soon' }, /invalid duration "soon"/);
  rejects({ timeout: 10 }, /"timeout" must be a duration string/);
  rejects({ tracer: 'callTracer', tracerConfig: { onlyTopCalls: true } }, /callTracer: unknown option "onlyTopCalls"/);
  rejects({ tracer: 'callTracer', tracerConfig: { withLog: 1 } }, /callTracer: option "withLog" must be a boolean/);
  rejects({ tracer: 'callTracer', tracerConfig: [] }, /callTracer: tracerConfig must be an object/);
  rejects({ tracer: 'prestateTracer', tracerConfig: { diffMode: true, includeEmpty: true } }, /cannot use diffMode with includeEmpty/);
  rejects({ tracer: '4byteTracer', tracerConfig: { x: 1 } }, /4byteTracer: unknown option "x"/);
  rejects({ tracer: 'muxTracer', tracerConfig: { nope: {} } }, /muxTracer: unknown tracer "nope"/);
  rejects({ tracer: 'muxTracer', tracerConfig: { callTracer: { bad: true } } }, /muxTracer\.callTracer: unknown option "bad"/);
  rejects({ overrides: { chainId: 1 } }, /"overrides"/);
  rejects({ stateOverrides: 'x' }, /"stateOverrides" must be an object/);
});

test('Go durations', () => {
  assert.equal(parseGoDuration('5s'), 5000);
  assert.equal(parseGoDuration('300ms'), 300);
  assert.equal(parseGoDuration('1m30s'), 90_000);
  assert.equal(parseGoDuration('1.5h'), 5_400_000);
  assert.equal(parseGoDuration('10us'), 0.01);
  assert.equal(parseGoDuration('0'), 0);
  assert.equal(parseGoDuration('-1s'), -1000);
  for (const bad of ['', '5', 's', '1x', '1.s.', '..5s']) assert.equal(parseGoDuration(bad), undefined, bad);
});
