/**
 * Differential test: the same signed transactions are executed on our ethereumjs VM and on
 * anvil (shipped as a devDependency); debug_traceTransaction outputs must agree.
 *
 * Where anvil (revm-inspectors) deviates from geth, the test follows geth and rewrites anvil's
 * answer first, asserting the deviation is exactly the known one:
 *  1. struct logs: anvil prints `memory: []` and `refund: 0`; geth omits empty memory and a zero
 *     refund (omitempty).
 *  2. struct logs: anvil's gasCost for CREATE/CREATE2 includes the gas handed to the new frame;
 *     geth's does not (it is deducted during execution, not as the opcode's cost).
 *  3. struct logs, SSTORE failing on the EIP-2200 sentry: anvil prints a Rust debug string
 *     (`Some(ReentrancySentryOOG)`) and the slot's old value; geth prints
 *     `out of gas: not enough gas for reentrancy sentry` and the value being written.
 *  4. callTracer: anvil reports the top frame's gas after intrinsic gas; geth reports the
 *     transaction's gas limit.
 *  5. prestateTracer: anvil lists accounts that were empty before the transaction (coinbase,
 *     created contracts); geth leaves them out unless `includeEmpty`. anvil has no `codeHash`
 *     field; geth adds it for accounts with code.
 *  6. 4byteTracer: anvil counts calls into precompiles; geth skips them ("just fancy opcodes").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { type Address, bytesToHex, createAddressFromString, createContractAddress, hexToBytes } from '@ethereumjs/util';
import { startAnvil } from '../support/anvil.js';
import { jsonDiff } from './jsonDiff.js';
import { SENDER, TestChain, artifact, encodeCall, json, type TxSpec } from './helpers.js';

const STRUCT = { enableMemory: true };
const CALL = { tracer: 'callTracer', tracerConfig: { withLog: true } };
const CALL_PLAIN = { tracer: 'callTracer' };
const PRESTATE = { tracer: 'prestateTracer' };
const PRESTATE_DIFF = { tracer: 'prestateTracer', tracerConfig: { diffMode: true } };
const FOURBYTE = { tracer: '4byteTracer' };
const CONFIGS = [STRUCT, CALL, CALL_PLAIN, PRESTATE, PRESTATE_DIFF, FOURBYTE];

function stripHex(s: string): string {
  return s.startsWith('0x') ? s.slice(2) : s;
}

/** Rewrite anvil's answer where anvil is known to deviate from geth (see the header). */
function gethify(cfg: unknown, anvil: any, ours: any, tx: { gasLimit: bigint }, callTree: any): any {
  const out = json(anvil);
  if (cfg === FOURBYTE) {
    const visit = (f: any) => {
      const isPrecompile = f.to !== undefined && BigInt(f.to) > 0n && BigInt(f.to) <= 0x11n;
      if (isPrecompile && ['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL'].includes(f.type) && f.input.length >= 10) {
        const key = `${f.input.slice(0, 10)}-${(f.input.length - 10) / 2}`;
        assert.ok(out[key] > 0, `anvil 4byte: expected a precompile entry ${key}`);
        if (--out[key] === 0) delete out[key];
      }
      for (const c of f.calls ?? []) visit(c);
    };
    visit(callTree);
  }
  if (cfg === STRUCT) {
    out.structLogs.forEach((l: any, i: number) => {
      const mine = ours.structLogs[i];
      if (Array.isArray(l.memory) && l.memory.length === 0) delete l.memory;
      if (l.refund === 0) delete l.refund;
      if ((l.op === 'CREATE' || l.op === 'CREATE2') && mine !== undefined && l.gasCost !== mine.gasCost) {
        const left = BigInt(l.gas) - BigInt(mine.gasCost);
        assert.equal(BigInt(l.gasCost), BigInt(mine.gasCost) + left - left / 64n, `anvil CREATE cost deviation at log ${i}`);
        l.gasCost = mine.gasCost;
      }
      if (l.error === 'Some(ReentrancySentryOOG)') {
        l.error = 'out of gas: not enough gas for reentrancy sentry';
        const n = l.stack.length;
        l.storage[`0x${stripHex(l.stack[n - 1]).padStart(64, '0')}`] = `0x${stripHex(l.stack[n - 2]).padStart(64, '0')}`;
      }
    });
  } else if (cfg === CALL || cfg === CALL_PLAIN) {
    out.gas = `0x${tx.gasLimit.toString(16)}`;
  } else if (cfg === PRESTATE || cfg === PRESTATE_DIFF) {
    const fix = (accounts: Record<string, any>, dropEmpty: boolean) => {
      for (const [addr, a] of Object.entries(accounts)) {
        if (dropEmpty && a.balance === '0x0' && a.nonce === undefined && a.code === undefined) delete accounts[addr];
        else if (a.code !== undefined && a.code !== '0x') a.codeHash = bytesToHex(keccak_256(hexToBytes(a.code)));
      }
    };
    if (cfg === PRESTATE) fix(out, true);
    else {
      fix(out.pre, true);
      fix(out.post, false);
    }
  }
  return out;
}

/** Hand-assembled helpers. */
function initFor(runtime: string): Uint8Array {
  const len = runtime.length / 2;
  const l = len.toString(16).padStart(2, '0');
  // PUSH1 len PUSH1 12 PUSH1 0 CODECOPY PUSH1 len PUSH1 0 RETURN <runtime>
  return hexToBytes(`0x60${l}600c60003960${l}6000f3${runtime}`);
}

function addr20(a: Address): string {
  return a.toString().slice(2);
}

test('traces agree with anvil (geth formats)', async () => {
  const anvil = await startAnvil(['--hardfork', 'prague', '--base-fee', '0', '--steps-tracing']);
  try {
    const latest = await anvil.rpc('eth_getBlockByNumber', ['latest', false]);
    const chain = await TestChain.create(createAddressFromString(latest.miner));
    const callee = artifact('Callee');
    const caller = artifact('Caller');
    const child = artifact('Child');
    const at = (n: bigint) => createContractAddress(SENDER, n);
    const calleeAddr = at(0n);
    const callerAddr = at(1n);
    const sel = (a: typeof caller, sig: string) => a.methodIdentifiers[sig];
    const beneficiary = createAddressFromString('0x000000000000000000000000000000000000beef');
    // CREATE2 child of Caller with salt 5.
    const saltChild = createAddressFromString(
      bytesToHex(keccak_256(hexToBytes(`0xff${addr20(callerAddr)}${'5'.padStart(64, '0')}${bytesToHex(keccak_256(hexToBytes(child.bytecode as `0x${string}`))).slice(2)}`)).slice(12)),
    );
    // Runtime that runs off its end after an SLOAD (geth traces an implicit STOP).
    const offTheEnd = '600160005560005460ff';
    // Runtime that CALLs with more value than it holds (call fails before entering).
    const poorCaller = `6000600060006000${'61ffff'}73${addr20(beneficiary)}5af15000`;
    // Runtime that STATICCALLs the identity and sha256 precompiles.
    const precompiles = '7f48656c6c6f000000000000000000000000000000000000000000000000000000600052' + '6020600060206000600461fffffa50' + '6020600060206000600261fffffa50' + '00';
    // A loop of 900 iterations (~6300 steps): PUSH2 900 JUMPDEST PUSH1 1 SWAP1 SUB DUP1 PUSH1 3 JUMPI STOP
    const loop = '6103845b600190038060035700';

    const steps: Array<{ name: string; spec: TxSpec }> = [
      { name: 'deploy Callee', spec: { data: hexToBytes(callee.bytecode as `0x${string}`) } },
      { name: 'deploy Caller', spec: { data: hexToBytes(caller.bytecode as `0x${string}`) } },
      { name: 'CALL (callStore)', spec: { to: callerAddr, data: encodeCall(sel(caller, 'callStore(address,uint256)'), calleeAddr, 42n) } },
      { name: 'STATICCALL (staticWhoami)', spec: { to: callerAddr, data: encodeCall(sel(caller, 'staticWhoami(address)'), calleeAddr) } },
      { name: 'DELEGATECALL (delegateStore)', spec: { to: callerAddr, data: encodeCall(sel(caller, 'delegateStore(address,uint256)'), calleeAddr, 7n) } },
      { name: 'caught revert (tryFail)', spec: { to: callerAddr, data: encodeCall(sel(caller, 'tryFail(address)'), calleeAddr) } },
      { name: 'inner out of gas (tryBurn)', spec: { to: callerAddr, data: encodeCall(sel(caller, 'tryBurn(address)'), calleeAddr) } },
      { name: 'CREATE2 with value (deploy)', spec: { to: callerAddr, value: 1000n, data: encodeCall(sel(caller, 'deploy(bytes32)'), 5n) } },
      { name: 'CREATE with value (deployPlain)', spec: { to: callerAddr, value: 5n, data: encodeCall(sel(caller, 'deployPlain()')) } },
      { name: 'SELFDESTRUCT (kill)', spec: { to: saltChild, data: encodeCall(child.methodIdentifiers['kill(address)'], beneficiary) } },
      { name: 'plain transfer', spec: { to: beneficiary, value: 10n ** 18n } },
      { name: 'top-level revert (fail)', spec: { to: calleeAddr, data: encodeCall(sel(callee, 'fail()')) } },
      { name: 'top-level out of gas (burn)', spec: { to: calleeAddr, gasLimit: 100_000n, data: encodeCall(sel(callee, 'burn()')) } },
      { name: 'deploy runs-off-the-end contract', spec: { data: initFor(offTheEnd) } },
      { name: 'implicit STOP after SLOAD', spec: { to: at(13n) } },
      { name: 'deploy poor caller', spec: { data: initFor(poorCaller) } },
      { name: 'CALL failing on balance', spec: { to: at(15n) } },
      { name: 'deploy precompile caller', spec: { data: initFor(precompiles) } },
      { name: 'precompile calls', spec: { to: at(17n), data: hexToBytes('0x12345678aa') } },
      { name: 'constructor reverts', spec: { data: hexToBytes('0x60006000fd') } },
      { name: 'deploy loop', spec: { data: initFor(loop) } },
      { name: 'loop of ~6300 steps', spec: { to: at(20n) } },
    ];

    const failures: string[] = [];
    for (const step of steps) {
      const tx = chain.tx(step.spec);
      const hash = await anvil.rpc('eth_sendRawTransaction', [bytesToHex(tx.serialize())]);
      let receipt = await anvil.rpc('eth_getTransactionReceipt', [hash]);
      for (let i = 0; receipt === null && i < 100; i++) {
        await new Promise((r) => setTimeout(r, 50));
        receipt = await anvil.rpc('eth_getTransactionReceipt', [hash]);
      }
      assert.ok(receipt, `${step.name}: anvil did not mine the transaction`);
      const mine = await chain.traceAndSend(tx, CONFIGS);
      assert.equal(BigInt(receipt.gasUsed), mine.outcome.gasUsed, `${step.name}: gas used differs`);
      for (const [j, cfg] of CONFIGS.entries()) {
        const ours = json(mine.results[j]);
        const theirs = gethify(cfg, await anvil.rpc('debug_traceTransaction', [hash, cfg]), ours, tx, json(mine.results[CONFIGS.indexOf(CALL_PLAIN)]));
        const diff = jsonDiff(ours, theirs);
        if (diff.length > 0) failures.push(`${step.name} ${JSON.stringify(cfg)}:\n    ${diff.join('\n    ')}`);
      }
    }
    assert.deepEqual(failures, [], failures.join('\n'));
  } finally {
    await anvil.close();
  }
});
