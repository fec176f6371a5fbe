/**
 * debug_traceTransaction / debug_traceCall with the stepTracer (the explorer's step debugger):
 * source lines with the Solidity call depth, frames with where their failure began, storage reads
 * and writes, and the per-opcode window with stack and memory changes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import { loadArtifacts } from '../../src/artifacts/load.js';
import { KEYS, RpcCallError, startTestNode, type TestNode } from '../support/node.js';
import { LAYOUTS } from '../support/sourcemaps.js';
import { deployVault, vaultLine, type Vault } from '../support/vault.js';
import { DebugModel, type StepTrace as ModelTrace } from '../../src/explorer/app/debugModel.js';

interface StepTrace {
  steps: number;
  from: number;
  count: number;
  truncated: boolean;
  failed: boolean;
  revert: { step: number; message: string } | null;
  frames: Array<{ type: string; contract: string | null; address: string; parent: number; callStep: number; start: number; last: number; end: number; error: string | null; failStep: number | null; message: string | null }>;
  locations: Array<{ file: string; line: number; function: string | null; contract: string | null }>;
  sources: Record<string, string>;
  lines: Array<[number, number, number, number]>;
  storage: Array<[number, number, string, string, 'r' | 'w', string?]>;
  window: Array<{ n: number; f: number; pc: number; op: string; g: number; c: number; l?: number; s: [number, ...string[]]; m?: Array<[number, string]>; mf?: number; ms: number }>;
}

for (const layout of ['foundry-noopt', 'hardhat-opt']) {
  describe(`stepTracer (${layout})`, () => {
    let node: TestNode;
    let v: Vault;
    let signer: NonceManager;
    before(async () => {
      node = await startTestNode({ artifacts: loadArtifacts([LAYOUTS[layout]!], () => undefined) });
      signer = new NonceManager(new Wallet(KEYS[0], new JsonRpcProvider(node.url, undefined, { staticNetwork: true })));
      v = await deployVault(layout, signer);
    });
    after(async () => node?.close());

    const send = async (data: string) => (await signer.sendTransaction({ to: v.teller, data, gasLimit: 300_000 })).hash;

    it('a revert two frames deep: lines with depths, frames, the failing step, storage writes with their old values', async () => {
      const hash = await send(v.iface.teller.encodeFunctionData('serve', [5]));
      const t = (await node.rpc('debug_traceTransaction', [hash, { tracer: 'stepTracer' }])) as StepTrace;
      assert.equal(t.failed, true);
      assert.equal(t.truncated, false);
      assert.equal(t.count, t.steps, 'the default window holds this short transaction');
      assert.equal(t.frames.length, 2);
      const [teller, bank] = t.frames;
      assert.deepEqual([teller!.contract, bank!.contract, bank!.parent, bank!.type], ['Teller', 'Bank', 0, 'CALL']);
      assert.equal(bank!.address, v.bank);
      assert.equal(bank!.message, 'execution reverted: not enough');
      assert.equal(t.revert!.message, 'execution reverted: not enough');
      // The failure began in Bank (on its require line), and Teller passed it on.
      assert.equal(t.revert!.step, bank!.failStep);
      assert.ok(bank!.failStep! >= bank!.start && bank!.failStep! <= bank!.last);
      const failLoc = t.lines.filter(([n]) => n <= t.revert!.step).at(-1)!;
      assert.equal(t.locations[failLoc[2]]!.line, vaultLine('require(have >= amount'));
      assert.equal(t.window[t.revert!.step]!.op, 'REVERT');
      assert.equal(t.sources['src/Vault.sol']!.split('\n')[vaultLine('require(have >= amount') - 1]!.trim(), 'require(have >= amount, "not enough");');
      // Lines, with Bank one Solidity frame deeper than Teller.serve.
      const lineOf = (e: [number, number, number, number]) => t.locations[e[2]]!.line;
      const visits = t.lines.find((e) => lineOf(e) === vaultLine('visits += 1'))!;
      const inBank = t.lines.find((e) => e[1] === 1 && lineOf(e) === vaultLine('require(have >= amount'))!;
      assert.equal(t.locations[visits[2]]!.function, 'serve');
      assert.equal(t.locations[inBank[2]]!.function, 'withdraw');
      assert.ok(inBank[3] > visits[3]);
      if (layout.endsWith('noopt')) {
        // The internal call doubled() runs one level deeper than serve.
        const inner = t.lines.find((e) => lineOf(e) === vaultLine('uint256 y = x * 2'))!;
        assert.equal(inner[3], visits[3] + 1);
        assert.equal(t.locations[inner[2]]!.function, 'doubled');
      }
      // Storage: Teller wrote visits (slot 0) 0 → 1 and last (slot 1) 0 → 10; Bank read balances[teller] = 0.
      const writes = t.storage.filter((s) => s[4] === 'w' && s[1] === 0).map((s) => [s[2], s[3], s[5]]);
      assert.deepEqual(writes, [
        ['0x0', '0x1', '0x0'],
        ['0x1', '0xa', '0x0'],
      ]);
      assert.ok(t.storage.some((s) => s[4] === 'r' && s[1] === 1 && s[3] === '0x0'));
      // The window: the stack at the REVERT holds its offset and size; the stack diff replays to it.
      let stack: string[] = [];
      for (const s of t.window.filter((w) => w.f === 1 && w.n <= t.revert!.step)) stack = s.s[0] < 0 ? s.s.slice(1) as string[] : [...stack.slice(0, s.s[0]), ...(s.s.slice(1) as string[])];
      const revert = t.window[t.revert!.step]!;
      assert.equal(stack.length >= 2, true);
      // REVERT(offset, size): the error data is Error(string) "not enough", 100 bytes.
      assert.equal(BigInt(stack.at(-2)!), 100n);
      assert.ok(revert.ms > 0);
    });

    it('windows: from/count select the detail, positions cover everything; bad options are -32602', async () => {
      const hash = await send(v.iface.teller.encodeFunctionData('serve', [5]));
      const full = (await node.rpc('debug_traceTransaction', [hash, { tracer: 'stepTracer' }])) as StepTrace;
      const part = (await node.rpc('debug_traceTransaction', [hash, { tracer: 'stepTracer', tracerConfig: { from: 100, count: 10 } }])) as StepTrace;
      assert.equal(part.steps, full.steps);
      assert.deepEqual(part.lines, full.lines);
      assert.equal(part.count, 10);
      assert.deepEqual(part.window.map((w) => [w.n, w.pc, w.op]), full.window.slice(100, 110).map((w) => [w.n, w.pc, w.op]));
      // The window's first step of a frame carries its whole stack and memory.
      assert.equal(part.window[0]!.s[0], -1);
      assert.equal(part.window[0]!.mf, 1);
      for (const bad of [{ from: -1 }, { count: 1e9 }, { start: 1 }]) {
        await assert.rejects(node.rpc('debug_traceTransaction', [hash, { tracer: 'stepTracer', tracerConfig: bad }]), (e: RpcCallError) => e.code === -32602 && /stepTracer/.test(e.message));
      }
    });

    it("a deployment: the constructor's lines in the init code", async () => {
      const code = await node.rpc('eth_getCode', [v.teller, 'latest']);
      assert.ok(code.length > 2);
      // The Teller's deployment is the last transaction before the tests' own.
      const block = await node.rpc('eth_getBlockByNumber', ['0x2', false]);
      const t = (await node.rpc('debug_traceTransaction', [block.transactions[0], { tracer: 'stepTracer' }])) as StepTrace;
      assert.equal(t.frames[0]!.type, 'CREATE');
      assert.equal(t.frames[0]!.contract, 'Teller');
      assert.equal(t.frames[0]!.address, v.teller);
      const ctor = t.lines.map((e) => t.locations[e[2]]!).find((l) => l.line === vaultLine('bank = b;'));
      assert.equal(ctor?.function, 'constructor');
      assert.equal(t.failed, false);
    });

    it('debug_traceCall: a composed call, and a caught revert keeps its own failing step', async () => {
      const data = v.iface.teller.encodeFunctionData('tryServe', [7]);
      const t = (await node.rpc('debug_traceCall', [{ from: await signer.getAddress(), to: v.teller, data }, 'latest', { tracer: 'stepTracer' }])) as StepTrace;
      assert.equal(t.failed, false);
      assert.equal(t.revert, null);
      const bank = t.frames[1]!;
      assert.equal(bank.message, 'execution reverted: not enough');
      assert.equal(t.window[bank.failStep!]!.op, 'REVERT');
    });
  });
}

describe('stepTracer against the struct logger: every step, read through windows', () => {
  let node: TestNode;
  let v: Vault;
  let signer: NonceManager;
  before(async () => {
    node = await startTestNode({ artifacts: loadArtifacts([LAYOUTS['foundry-noopt']!], () => undefined) });
    signer = new NonceManager(new Wallet(KEYS[0], new JsonRpcProvider(node.url, undefined, { staticNetwork: true })));
    v = await deployVault('foundry-noopt', signer);
  });
  after(async () => node?.close());

  it("the debugger's stack, memory and storage at each step equal geth's struct log (small windows moved across the transaction)", async () => {
    const hash = (await signer.sendTransaction({ to: v.teller, data: v.iface.teller.encodeFunctionData('tryServe', [5]), gasLimit: 300_000 })).hash;
    const logs = (await node.rpc('debug_traceTransaction', [hash, { enableMemory: true }])).structLogs as Array<{ pc: number; op: string; stack: string[]; memory?: string[]; storage?: Record<string, string>; depth: number }>;
    const fetch = async (from: number) => (await node.rpc('debug_traceTransaction', [hash, { tracer: 'stepTracer', tracerConfig: { from, count: 37 } }])) as ModelTrace;
    const model = new DebugModel(await fetch(0));
    assert.equal(model.steps, logs.length);
    const strip = (w: string) => BigInt(w);
    for (let n = 0; n < logs.length; n++) {
      if (!model.inWindow(n)) model.setWindow(await fetch(n));
      const log = logs[n]!;
      const w = model.step(n)!;
      assert.deepEqual([w.pc, w.op], [log.pc, log.op], `step ${n}`);
      assert.deepEqual(model.stack(n)!.map(strip), log.stack.map(strip), `stack at step ${n}`);
      assert.deepEqual(model.memory(n)!, (log.memory ?? []).map((x) => x.replace(/^0x/, '')), `memory at step ${n}`);
      // The struct log shows storage at SLOAD / SSTORE: the slots the frame touched, as the debugger does (after the access).
      if (log.storage !== undefined && n + 1 < logs.length && logs[n + 1]!.depth === log.depth) {
        const frame = model.trace.frames[model.frameAt(n)]!;
        const mine = Object.fromEntries(model.storage(n + 1, frame.address).map((s) => [strip(s.slot).toString(), strip(s.value)]));
        for (const [slot, value] of Object.entries(log.storage)) assert.equal(mine[strip(slot).toString()], strip(value), `slot ${slot} after step ${n}`);
      }
    }
    // The next visit's write names the value it replaced (read before the SSTORE ran).
    const again = (await signer.sendTransaction({ to: v.teller, data: v.iface.teller.encodeFunctionData('tryServe', [5]), gasLimit: 300_000 })).hash;
    const t = (await node.rpc('debug_traceTransaction', [again, { tracer: 'stepTracer' }])) as ModelTrace;
    assert.deepEqual(t.storage.find((e) => e[4] === 'w'), [t.storage.find((e) => e[4] === 'w')![0], 0, '0x0', '0x2', 'w', '0x1']);
    const m = new DebugModel(t);
    assert.deepEqual(m.storage(m.steps - 1, v.teller), [{ slot: '0x0', value: '0x2', original: '0x1', changed: true }]);
  });
});
