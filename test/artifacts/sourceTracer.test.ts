/**
 * debug_traceTransaction / debug_traceCall with the sourceTracer: the call tree with the source
 * location of each frame's entry, exit and call site, and the revert with its stack and snippet.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Contract, JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import { loadArtifacts } from '../../src/artifacts/load.js';
import { ADDRS, KEYS, startTestNode, type TestNode } from '../support/node.js';
import { deployFixtures, LAYOUTS, lineOf, type Deployed } from '../support/sourcemaps.js';

for (const layout of ['hardhat-noopt', 'foundry-opt']) {
  describe(`sourceTracer (${layout})`, () => {
    let node: TestNode;
    let d: Deployed;
    let signer: NonceManager;
    before(async () => {
      node = await startTestNode({ artifacts: loadArtifacts([LAYOUTS[layout]!], () => undefined) });
      signer = new NonceManager(new Wallet(KEYS[0], new JsonRpcProvider(node.url, undefined, { staticNetwork: true })));
      d = await deployFixtures(layout, signer);
    });
    after(async () => node?.close());

    it('a reverted transaction two frames deep: entry, exit and call site of each frame, the revert with stack and snippet', async () => {
      const caller = new Contract(d.caller, d.iface.caller, signer);
      const tx = await caller.getFunction('sendRequire').send(5, { gasLimit: 200_000 });
      const trace = await node.rpc('debug_traceTransaction', [tx.hash, { tracer: 'sourceTracer' }]);
      assert.equal(trace.contract, 'Caller');
      assert.equal(trace.entry.function, 'sendRequire');
      assert.equal(trace.entry.file, 'src/Thrower.sol');
      assert.equal(trace.error, 'execution reverted');
      const inner = trace.calls[0];
      assert.equal(inner.type, 'STATICCALL');
      assert.equal(inner.contract, 'Thrower');
      assert.equal(inner.to, d.thrower.toLowerCase());
      assert.deepEqual([inner.callSite.function, inner.callSite.line], ['sendRequire', lineOf('thrower.requireString(x);', 1)]);
      assert.deepEqual([inner.entry.function, inner.exit.function, inner.exit.line], ['requireString', 'requireString', lineOf('require(x > 10')]);
      assert.equal(inner.exit.code.trim(), 'require(x > 10, "x must be greater than 10");');
      assert.equal(typeof inner.exit.pc, 'number');
      assert.match(trace.revert.message, /^execution reverted: x must be greater than 10 \(at Thrower.requireString src\/Thrower.sol:\d+:\d+, Caller.sendRequire src\/Thrower.sol:\d+:\d+\)$/);
      assert.deepEqual(trace.revert.stack.map((f: any) => `${f.contract}.${f.function}:${f.line}`), [`Thrower.requireString:${lineOf('require(x > 10')}`, `Caller.sendRequire:${lineOf('thrower.requireString(x);', 1)}`]);
      const snippet: Array<{ line: number; text: string }> = trace.revert.snippet;
      assert.equal(snippet.length, 7);
      assert.equal(snippet[3]!.line, lineOf('require(x > 10'));
    });

    it('debug_traceCall: a constructor and a library; a successful call has no revert', async () => {
      const ctor = await node.rpc('debug_traceCall', [{ from: ADDRS[0], data: d.failing(0n) }, 'latest', { tracer: 'sourceTracer' }]);
      assert.equal(ctor.type, 'CREATE');
      assert.deepEqual([ctor.contract, ctor.exit.function, ctor.exit.line], ['Failing', 'constructor', lineOf('require(x != 0')]);
      assert.match(ctor.revert.message, /constructor needs a non-zero x \(at Failing.constructor/);
      const lib = await node.rpc('debug_traceCall', [{ from: ADDRS[0], to: d.thrower, data: d.iface.thrower.encodeFunctionData('checked', [1]) }, 'latest', { tracer: 'sourceTracer' }]);
      assert.equal(lib.calls[0].type, 'DELEGATECALL');
      assert.deepEqual([lib.calls[0].contract, lib.calls[0].exit.function], ['Checks', 'atLeast']);
      assert.match(lib.revert.message, /^execution reverted: TooSmall\(1, 5\) \(at Checks.atLeast/);
      const ok = await node.rpc('debug_traceCall', [{ from: ADDRS[0], to: d.thrower, data: d.iface.thrower.encodeFunctionData('checked', [7]) }, 'latest', { tracer: 'sourceTracer' }]);
      assert.equal(ok.revert, undefined);
      assert.equal(ok.error, undefined);
      assert.equal(ok.exit.function, 'checked');
    });

    it('a bad tracerConfig is -32602; muxTracer takes it beside the callTracer', async () => {
      const bad = await node.raw('debug_traceCall', [{ to: d.thrower, data: '0x' }, 'latest', { tracer: 'sourceTracer', tracerConfig: { steps: true } }]);
      assert.equal(bad.error?.code, -32602);
      assert.match(bad.error!.message, /sourceTracer: unknown option "steps"/);
      const mux = await node.rpc('debug_traceCall', [{ from: ADDRS[0], to: d.thrower, data: d.iface.thrower.encodeFunctionData('custom', [101]) }, 'latest', { tracer: 'muxTracer', tracerConfig: { callTracer: {}, sourceTracer: {} } }]);
      assert.equal(mux.callTracer.error, 'execution reverted');
      assert.match(mux.sourceTracer.revert.message, /Bad\(/);
    });
  });
}

describe('sourceTracer without artifacts', () => {
  let node: TestNode;
  after(async () => node?.close());
  it('the tree with program counters, every location null, no revert', async () => {
    node = await startTestNode();
    const d = await deployFixtures('foundry-opt', new NonceManager(new Wallet(KEYS[0], new JsonRpcProvider(node.url, undefined, { staticNetwork: true }))));
    const t = await node.rpc('debug_traceCall', [{ from: ADDRS[0], to: d.caller, data: d.iface.caller.encodeFunctionData('callRequire', [5]) }, 'latest', { tracer: 'sourceTracer' }]);
    assert.equal(t.contract, null);
    assert.equal(t.entry, null);
    assert.equal(typeof t.exit.pc, 'number');
    assert.equal(t.exit.file, null);
    assert.equal(t.calls[0].callSite.file, null);
    assert.equal(t.revert, undefined);
  });
});
