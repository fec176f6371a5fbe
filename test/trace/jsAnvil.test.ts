/**
 * Differential test: the same JavaScript tracers over the same transactions on node-rpc and on
 * anvil (whose JS tracers run on revm-inspectors). Both chains get the same transactions from the
 * same dev account, so addresses, inputs and gas agree.
 *
 * Where anvil deviates from geth the comparison leaves the field out, and node-rpc's value is
 * checked against geth's documented behaviour in jsTracer.test.ts instead:
 *  1. log.getCost(): anvil reports the previous opcode's cost (0 on a frame's first step); geth
 *     and node-rpc the current one's (equal to the struct logs' gasCost).
 *  2. log.contract.getInput() in a CREATE frame: anvil gives the init code; geth gives nothing
 *     (the init code is the frame's code, not its input).
 *  3. ctx.value / ctx.gasPrice / db.getBalance: anvil gives native BigInts and a number; geth gives
 *     bigInt objects. Compared by their decimal text. ctx.intrinsicGas: anvil 0.
 *  4. A STATICCALL frame's getValue(): geth gives undefined (the call carries no value), anvil 0.
 *  5. db: anvil reads storage and balances as they were before the transaction (in step() and in
 *     result()) and says an account never touched exists; geth reads the state as it is at that
 *     moment. Compared: nonces, code and existence in step(); storage values are left out.
 *  6. fault(): anvil's log.getError() is revm's name ("Revert"); geth's text is
 *     "execution reverted". Compared by opcode and depth. For an out of gas before the opcode
 *     runs, anvil calls no hook; geth calls step() with the error, and node-rpc (whose step()
 *     for that opcode has already run) calls fault(): left out.
 *  8. exit() of a frame that ran out of gas: anvil's getGasUsed() leaves out what the failing
 *     opcode would have cost; geth gives all the frame's gas, as its callTracer (and anvil's) does.
 *  7. geth's named JS tracers (opcountTracer, …) and flatCallTracer: anvil has none (an unknown
 *     name, and `{}`); nothing to compare.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAddressFromString, createContractAddress } from '@ethereumjs/util';
import { startAnvil } from '../support/anvil.js';
import { startTestNode } from '../support/node.js';
import { artifact } from './helpers.js';
import { jsonDiff } from './jsonDiff.js';

const STEPS = `{
  rows: [],
  step: function (log, db) {
    var create = log.contract.getInput().length === 0;
    this.rows.push([log.op.toString(), log.op.toNumber(), log.op.isPush(), log.getPC(), log.getGas(), log.getRefund(), log.getDepth(),
      log.stack.length(), log.memory.length(), log.stack.length() > 0 ? log.stack.peek(0).toString(16) : null,
      log.stack.length() > 1 ? log.stack.peek(log.stack.length() - 1).toString(16) : null,
      log.memory.length() >= 32 ? toHex(log.memory.slice(0, 32)) : null,
      toHex(log.contract.getAddress()), toHex(log.contract.getCaller()), log.contract.getValue().toString(), log.getError() === undefined]);
    var name = log.op.toString();
    if (name === 'SSTORE' || name === 'SLOAD' || name === 'CALL' || name === 'STATICCALL' || name === 'DELEGATECALL') {
      var a = log.contract.getAddress();
      this.rows.push(['db', db.getBalance(a).toString(), db.getNonce(a), toHex(db.getCode(a)).length, toHex(db.getState(a, toWord(log.stack.peek(0).toString(16)))), db.exists(a)]);
    }
  },
  fault: function (log, db) { this.rows.push(['fault', log.op.toString(), log.getDepth(), log.getError()]); },
  result: function (ctx, db) { return this.rows; }
}`;

const FRAMES = `{
  rows: [],
  enter: function (f) { this.rows.push([f.getType(), toHex(f.getFrom()), toHex(f.getTo()), toHex(f.getInput()), f.getGas(), f.getValue() === undefined ? null : f.getValue().toString()]); },
  exit: function (r) { this.rows.push([r.getGasUsed(), toHex(r.getOutput()), r.getError() === undefined ? null : r.getError()]); },
  fault: function () {},
  result: function () { return this.rows; }
}`;

const RESULT = `{
  n: 0,
  step: function () { this.n++; },
  fault: function () {},
  result: function (ctx, db) {
    return { steps: this.n, type: ctx.type, from: toHex(ctx.from), to: toHex(ctx.to), input: toHex(ctx.input), gas: ctx.gas, gasUsed: ctx.gasUsed,
      block: ctx.block, output: toHex(ctx.output), error: ctx.error === undefined ? null : ctx.error, value: ctx.value.toString(), gasPrice: ctx.gasPrice.toString(),
      balance: db.getBalance(ctx.from).toString(), nonce: db.getNonce(ctx.from), code: toHex(db.getCode(ctx.to)), slot: toHex(db.getState(ctx.to, toWord('0x00'))),
      exists: [db.exists(ctx.to), db.exists(toAddress('0x00000000000000000000000000000000000000ee'))],
      helpers: [toHex(toContract(ctx.from, 3)), toHex(toContract2(ctx.from, '0x05', '0x6000')), isPrecompiled(toAddress('0x02')), isPrecompiled(toAddress('0x1234')),
        ctx.input.length >= 4 ? toHex(slice(ctx.input, 0, 4)) : null, toHex(toWord('0x1234')), toHex(toAddress('0x1234'))] };
  }
}`;

/** Leave out what anvil reports differently from geth (see the header). */
function comparable(name: string, value: unknown): unknown {
  if (name === 'steps') {
    return (value as unknown[][])
      .filter((r) => !(r[0] === 'fault' && /^(out of gas|stack)/.test(String(r[3]))))
      .map((r) => (r[0] === 'fault' ? r.slice(0, 3) : r[0] === 'db' ? [...r.slice(0, 4), ...r.slice(5)] : r));
  }
  if (name === 'frames') {
    return (value as unknown[][]).map((r) => (r[0] === 'STATICCALL' ? [...r.slice(0, 5), null] : r.length === 3 && /^out of gas/.test(String(r[2])) ? [null, ...r.slice(1)] : r));
  }
  if (name === 'result') {
    const { balance: _b, slot: _s, exists, ...rest } = value as Record<string, unknown> & { exists: boolean[] };
    return { ...rest, exists: exists[0] };
  }
  return value;
}

test('JavaScript tracers agree with anvil', async () => {
  const anvil = await startAnvil(['--hardfork', 'prague']);
  const node = await startTestNode();
  try {
    const caller = artifact('Caller');
    const callee = artifact('Callee');
    const word = (a: string) => a.slice(2).padStart(64, '0');
    const failures: string[] = [];
    const stepMs: string[] = [];
    const hashes: Array<Array<{ name: string; hash: string }>> = [];
    for (const chain of [node, anvil]) {
      const [from] = (await chain.rpc('eth_accounts')) as string[];
      const sender = createAddressFromString(from);
      const calleeAt = createContractAddress(sender, 0n).toString();
      const callerAt = createContractAddress(sender, 1n).toString();
      const sel = (sig: string) => '0x' + caller.methodIdentifiers[sig];
      const txs: Array<[string, Record<string, unknown>]> = [
        ['deploy Callee', { data: callee.bytecode }],
        ['deploy Caller', { data: caller.bytecode }],
        ['CALL + SSTORE (callStore)', { to: callerAt, data: sel('callStore(address,uint256)') + word(calleeAt) + word('0x2a') }],
        ['STATICCALL (staticWhoami)', { to: callerAt, data: sel('staticWhoami(address)') + word(calleeAt) }],
        ['DELEGATECALL (delegateStore)', { to: callerAt, data: sel('delegateStore(address,uint256)') + word(calleeAt) + word('0x07') }],
        ['caught revert (tryFail)', { to: callerAt, data: sel('tryFail(address)') + word(calleeAt) }],
        ['inner out of gas (tryBurn)', { to: callerAt, data: sel('tryBurn(address)') + word(calleeAt) }],
        ['CREATE2 with value (deploy)', { to: callerAt, value: '0x3e8', data: sel('deploy(bytes32)') + word('0x05') }],
        ['CREATE (deployPlain)', { to: callerAt, value: '0x5', data: sel('deployPlain()') }],
        ['top-level revert (fail)', { to: calleeAt, data: '0x' + callee.methodIdentifiers['fail()'] }],
        ['plain transfer', { to: '0x000000000000000000000000000000000000beef', value: '0x1' }],
      ];
      const list: Array<{ name: string; hash: string }> = [];
      for (const [name, tx] of txs) list.push({ name, hash: await chain.rpc('eth_sendTransaction', [{ from, gas: '0x1e8480', gasPrice: '0x12a05f200', ...tx }]) });
      hashes.push(list);
    }
    for (let i = 0; i < hashes[0].length; i++) {
      const { name, hash } = hashes[0][i];
      for (const [tracerName, tracer] of [['steps', STEPS], ['frames', FRAMES], ['result', RESULT]] as const) {
        // The steps tracer reads db in step(): one exchange per step, slow on a busy machine.
        const t0 = performance.now();
        const ours = comparable(tracerName, await node.rpc('debug_traceTransaction', [hash, { tracer, timeout: '120s' }]));
        if (tracerName === 'steps') stepMs.push(`${name}: ${(performance.now() - t0).toFixed(0)} ms`);
        const theirs = comparable(tracerName, await anvil.rpc('debug_traceTransaction', [hashes[1][i].hash, { tracer, timeout: '120s' }]));
        const diff = jsonDiff(ours, theirs);
        if (diff.length > 0) failures.push(`${name} / ${tracerName}:\n    ${diff.slice(0, 8).join('\n    ')}`);
      }
    }
    assert.deepEqual(failures, [], failures.join('\n'));
    process.stderr.write(`steps tracer (db in step) on node-rpc: ${stepMs.join(', ')}\n`);
  } finally {
    await anvil.close();
    await node.close();
  }
});
