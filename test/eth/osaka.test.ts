/**
 * Osaka's rules through JSON-RPC, each against anvil at the same fork (anvil --hardfork osaka, with
 * its EIP-7825 check turned on): P256VERIFY (EIP-7951), CLZ (EIP-7939) in calls, mined
 * transactions and traces, the 2^24 transaction gas cap (EIP-7825), MODEXP's bounds and prices
 * (EIP-7823, EIP-7883). The same requests must give the same results, receipts, gas and state; and
 * at Prague none of it exists. These stand in for filled Osaka state tests.
 */
import assert from 'node:assert/strict';
import { watchWorkers } from '../support/workers.js';
import type { CallReply } from '../../src/chain/exec/offload/protocol.js';
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Wallet } from 'ethers';
import { ADDRS, KEYS, startTestNode, type TestNode } from '../support/node.js';
import { startAnvil, type Anvil } from '../support/anvil.js';

interface Rpc {
  rpc<T = any>(method: string, params?: unknown[]): Promise<T>;
  raw(method: string, params?: unknown[]): Promise<{ result?: any; error?: { code: number; message: string; data?: unknown } }>;
}

const P256 = '0x0000000000000000000000000000000000000100';
const MODEXP = '0x0000000000000000000000000000000000000005';
const CAP = 1n << 24n;
const hex = (n: bigint, bytes = 32) => n.toString(16).padStart(bytes * 2, '0');
const word = (n: bigint) => '0x' + hex(n);

/** Init code that deploys `runtime` (hex without 0x, under 256 bytes). */
function deployCode(runtime: string): string {
  const len = (runtime.length / 2).toString(16).padStart(2, '0');
  return `0x60${len}600c60003960${len}6000f3${runtime}`;
}
/** Returns CLZ(calldata word 0). */
const CLZ_RETURN = '6000351e60005260206000f3';
/** Stores CLZ(calldata word 0) in slot 0. */
const CLZ_STORE = '6000351e60005500';

/** A P-256 signature of a message as P256VERIFY takes it: hash, r, s, x, y (160 bytes). */
function p256Input(): string {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const message = Buffer.from('node-rpc osaka');
  const sig = sign('sha256', message, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  const jwk = publicKey.export({ format: 'jwk' });
  const xy = Buffer.concat([Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
  return '0x' + Buffer.concat([createHash('sha256').update(message).digest(), sig, xy]).toString('hex');
}

/** MODEXP input: lengths, then base, exponent and modulus. */
function modexpInput(base: string, exp: string, mod: string): string {
  const len = (h: string) => hex(BigInt(h.length / 2));
  return '0x' + len(base) + len(exp) + len(mod) + base + exp + mod;
}

describe('Osaka against anvil --hardfork osaka', () => {
  let ours: TestNode;
  let prague: TestNode;
  let anvil: Anvil;
  let nodes: Rpc[];
  const wallet = new Wallet(KEYS[1]);
  const addrs: Record<string, string> = {};

  async function both(method: string, params: unknown[]): Promise<[any, any]> {
    return Promise.all(nodes.map((n) => n.rpc(method, params))) as Promise<[any, any]>;
  }

  /** Sign `tx` from KEYS[1] for `n` and send it; resolves to the raw answer. */
  async function sendRaw(n: Rpc, tx: object) {
    const nonce = Number(await n.rpc('eth_getTransactionCount', [ADDRS[1], 'latest']));
    const raw = await wallet.signTransaction({ chainId: 984n, type: 2, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, nonce, ...tx });
    return n.raw('eth_sendRawTransaction', [raw]);
  }

  async function receiptOf(n: Rpc, hash: string): Promise<any> {
    for (let i = 0; i < 200; i++) {
      const r = await n.rpc('eth_getTransactionReceipt', [hash]);
      if (r) return r;
      await new Promise((res) => setTimeout(res, 10));
    }
    throw new Error(`no receipt for ${hash}`);
  }

  async function mineBoth(tx: object): Promise<[any, any]> {
    const out = [];
    for (const n of nodes) {
      const sent = await sendRaw(n, tx);
      assert.equal(sent.error, undefined, JSON.stringify(sent.error));
      out.push(await receiptOf(n, sent.result));
    }
    return out as [any, any];
  }

  before(async () => {
    ours = await startTestNode({ chain: { hardfork: 'osaka' } });
    prague = await startTestNode({ chain: { hardfork: 'prague' } });
    anvil = await startAnvil(['--hardfork', 'osaka', '--enable-tx-gas-limit', '--steps-tracing']);
    nodes = [ours, anvil];
    for (const [name, runtime] of [['clz', CLZ_RETURN], ['clzStore', CLZ_STORE]] as const) {
      const [a, b] = await mineBoth({ data: deployCode(runtime), gasLimit: 200_000n });
      assert.equal(a.contractAddress, b.contractAddress);
      addrs[name] = a.contractAddress;
      const r = await sendRaw(prague, { data: deployCode(runtime), gasLimit: 200_000n });
      assert.equal((await receiptOf(prague, r.result)).contractAddress, a.contractAddress);
    }
  });

  after(async () => {
    await ours?.close();
    await prague?.close();
    await anvil?.close();
  });

  test('anvil_nodeInfo and eth_config name the fork; the default is mainnet\'s current one, BPO2', async () => {
    assert.equal((await ours.rpc('anvil_nodeInfo')).hardFork, (await anvil.rpc('anvil_nodeInfo')).hardFork);
    assert.equal((await prague.rpc('anvil_nodeInfo')).hardFork, 'Prague');
    const osaka = (await ours.rpc('eth_config')).current;
    assert.equal(osaka.precompiles.P256VERIFY, P256);
    assert.deepEqual(osaka.blobSchedule, { baseFeeUpdateFraction: 5007716, max: 9, target: 6 });
    assert.equal((await prague.rpc('eth_config')).current.precompiles.P256VERIFY, undefined);
    const dflt = await startTestNode();
    try {
      assert.equal((await dflt.rpc('anvil_nodeInfo')).hardFork, 'Bpo2');
      assert.deepEqual((await dflt.rpc('eth_config')).current.blobSchedule, { baseFeeUpdateFraction: 11684671, max: 21, target: 14 });
    } finally {
      await dflt.close();
    }
  });

  test('P256VERIFY (EIP-7951): a valid signature gives 1, an invalid one nothing; same result and gas as anvil; absent at Prague', async () => {
    const input = p256Input();
    const bad = input.slice(0, 80) + (input[80] === '0' ? '1' : '0') + input.slice(81);
    const [ok, okAnvil] = await both('eth_call', [{ to: P256, data: input }, 'latest']);
    assert.equal(ok, word(1n));
    assert.equal(okAnvil, ok);
    const [no, noAnvil] = await both('eth_call', [{ to: P256, data: bad }, 'latest']);
    assert.equal(no, '0x');
    assert.equal(noAnvil, no);
    const [gas, gasAnvil] = await both('eth_estimateGas', [{ from: ADDRS[1], to: P256, data: input }]);
    assert.equal(gas, gasAnvil);
    // 21,000 + calldata + the precompile's 6,900.
    const calldata = [...Buffer.from(input.slice(2), 'hex')].reduce((s, b) => s + (b === 0 ? 4 : 16), 0);
    assert.equal(BigInt(gas), 21_000n + BigInt(calldata) + 6_900n);
    // At Prague 0x100 is an empty account: the call succeeds with no output (OpenZeppelin's P256 reports MissingPrecompile).
    assert.equal(await prague.rpc('eth_call', [{ to: P256, data: input }, 'latest']), '0x');
    const [mined, minedAnvil] = await mineBoth({ to: P256, data: input, gasLimit: 100_000n });
    assert.equal(mined.gasUsed, minedAnvil.gasUsed);
    assert.equal(mined.status, '0x1');
  });

  test('CLZ (EIP-7939): results and gas in eth_call, a mined transaction and debug traces match anvil; invalid at Prague', async () => {
    const cases: Array<[bigint, bigint]> = [
      [0n, 256n],
      [1n, 255n],
      [0xffn, 248n],
      [1n << 255n, 0n],
      [(1n << 256n) - 1n, 0n],
      [1n << 128n, 127n],
    ];
    for (const [x, clz] of cases) {
      const [r, rAnvil] = await both('eth_call', [{ to: addrs.clz, data: word(x) }, 'latest']);
      assert.equal(r, word(clz), `clz(${x})`);
      assert.equal(rAnvil, r);
    }
    const [gas, gasAnvil] = await both('eth_estimateGas', [{ from: ADDRS[1], to: addrs.clz, data: word(1n) }]);
    assert.equal(gas, gasAnvil);
    // A traced call: the CLZ step costs 5 and pushes the count.
    const trace = await ours.rpc('debug_traceCall', [{ to: addrs.clz, data: word(0xffn) }, 'latest', { enableMemory: false }]);
    const at = trace.structLogs.findIndex((s: any) => s.op === 'CLZ');
    assert.ok(at > 0, 'a CLZ step');
    assert.equal(trace.structLogs[at].gasCost, 5);
    assert.equal(trace.structLogs[at].gas - trace.structLogs[at + 1].gas, 5);
    assert.equal(BigInt(trace.structLogs[at + 1].stack.at(-1)), 248n);
    // A mined transaction: receipt, gas and storage as anvil's, and its trace as anvil's.
    const [a, b] = await mineBoth({ to: addrs.clzStore, data: word(1n << 200n), gasLimit: 100_000n });
    assert.equal(a.status, '0x1');
    assert.equal(a.gasUsed, b.gasUsed);
    const [slot, slotAnvil] = await both('eth_getStorageAt', [addrs.clzStore, '0x0', 'latest']);
    assert.equal(BigInt(slot), 55n);
    assert.equal(slotAnvil, slot);
    const steps = (t: any) => t.structLogs.map((s: any) => [s.pc, s.op, s.gas, s.gasCost, s.depth, s.stack]);
    const [t1, t2] = [await ours.rpc('debug_traceTransaction', [a.transactionHash, {}]), await anvil.rpc('debug_traceTransaction', [b.transactionHash, {}])];
    assert.deepEqual(steps(t1), steps(t2));
    assert.equal(t1.gas, t2.gas);
    // Prague: 0x1e is not an instruction.
    const r = await prague.raw('eth_call', [{ to: addrs.clz, data: word(1n) }, 'latest']);
    assert.match(r.error?.message ?? '', /invalid opcode/);
  });

  test('EIP-7825: a transaction over 2^24 gas is refused with the cap named; 2^24 exactly is mined; calls run past it; estimates stay under it', async () => {
    const over = await sendRaw(ours, { to: ADDRS[2], gasLimit: CAP + 1n });
    assert.equal(over.error?.code, -32000);
    assert.equal(over.error?.message, `transaction gas limit too high (cap: ${CAP}, tx: ${CAP + 1n})`);
    assert.ok((await sendRaw(anvil, { to: ADDRS[2], gasLimit: CAP + 1n })).error, 'anvil refuses it too');
    const sent = await ours.raw('eth_sendTransaction', [{ from: ADDRS[0], to: ADDRS[2], gas: '0x' + (CAP + 1n).toString(16) }]);
    assert.equal(sent.error?.message, `transaction gas limit too high (cap: ${CAP}, tx: ${CAP + 1n})`);
    const [a, b] = await mineBoth({ to: ADDRS[2], gasLimit: CAP, value: 1n });
    assert.equal(a.status, '0x1');
    assert.equal(a.gasUsed, b.gasUsed);
    // Prague has no cap.
    const pr = await sendRaw(prague, { to: ADDRS[2], gasLimit: CAP + 1n });
    assert.equal(pr.error, undefined);
    // eth_call is not a transaction: like geth and anvil, it runs with the gas asked for (GAS returns what is left).
    const gasLeft = '0x5a60005260206000f3';
    const [g, gAnvil] = await both('eth_call', [{ data: gasLeft, gas: '0x1c9c380' }, 'latest']);
    assert.ok(BigInt(g) > CAP);
    assert.equal(g, gAnvil);
    // eth_estimateGas searches at most 2^24, as geth's: an endless loop needs more than any transaction may carry.
    const loop = await ours.raw('eth_estimateGas', [{ from: ADDRS[1], data: '0x5b600056' }]);
    assert.equal(loop.error?.message, `gas required exceeds allowance (${CAP})`);
    const asked = await ours.raw('eth_estimateGas', [{ from: ADDRS[1], data: '0x5b600056', gas: '0x1c9c380' }]);
    assert.equal(asked.error?.message, `gas required exceeds allowance (${CAP})`);
    assert.equal(await ours.rpc('eth_estimateGas', [{ from: ADDRS[1], to: ADDRS[2], gas: '0x1c9c380' }]), '0x5208');
    // eth_simulateV1 with validation checks the cap on a gas the call names; a call that names none gets the RPC gas cap (as geth's answers show), past 2^24.
    const sim = await ours.raw('eth_simulateV1', [{ blockStateCalls: [{ calls: [{ from: ADDRS[1], to: ADDRS[2], gas: '0x' + (CAP + 1n).toString(16), maxFeePerGas: '0x174876e800' }] }], validation: true }, 'latest']);
    assert.match(sim.error?.message ?? '', /transaction gas limit too high \(cap: 16777216, tx: 16777217\)/);
    // (A validated call pays what it names: without a price it would pay less than the base fee, -38012 as in geth.)
    const free = await ours.rpc('eth_simulateV1', [{ blockStateCalls: [{ calls: [{ from: ADDRS[1], data: gasLeft, maxFeePerGas: '0x174876e800' }] }], validation: true }, 'latest']);
    assert.equal(free[0].calls[0].status, '0x1');
    assert.ok(BigInt(free[0].calls[0].returnData) > CAP);
  });

  test('call worker threads run the node\'s fork: CLZ and P256VERIFY on a worker at Osaka, neither at Prague', async () => {
    const input = p256Input();
    for (const hardfork of ['osaka', 'prague'] as const) {
      const n = await startTestNode({ chain: { hardfork }, callWorkers: 1 });
      try {
        const workers = n.node.callWorkers!;
        const kinds: CallReply['kind'][] = [];
        watchWorkers(workers, kinds, true);
        for (let i = 0; i < 100 && !workers.available(); i++) await new Promise((r) => setTimeout(r, 50));
        assert.ok(workers.available(), 'the worker started');
        await n.rpc('anvil_setCode', [addrs.clz, '0x' + CLZ_RETURN]);
        const clz = await n.raw('eth_call', [{ to: addrs.clz, data: word(0xffn) }, 'latest']);
        const p256 = await n.raw('eth_call', [{ to: P256, data: input }, 'latest']);
        if (hardfork === 'osaka') {
          assert.equal(clz.result, word(248n));
          assert.equal(p256.result, word(1n));
          assert.deepEqual(kinds, ['ok', 'ok']);
        } else {
          assert.match(clz.error?.message ?? '', /invalid opcode/);
          assert.equal(p256.result, '0x');
          assert.deepEqual(kinds, ['failed', 'ok']);
        }
      } finally {
        await n.close();
      }
    }
  });

  test('MODEXP (EIP-7823, EIP-7883): an input over 1,024 bytes fails, new prices; as anvil, unlike Prague', async () => {
    const big = modexpInput('00'.repeat(1025), '01', '03');
    const [r, rAnvil] = await Promise.all(nodes.map((n) => n.raw('eth_call', [{ to: MODEXP, data: big }, 'latest'])));
    assert.ok(r.error, 'over the bound fails');
    assert.ok(rAnvil.error, 'anvil: over the bound fails');
    assert.equal(await prague.rpc('eth_call', [{ to: MODEXP, data: big }, 'latest']), '0x00');
    const inputs = [modexpInput('02', '03', '05'), modexpInput('ff'.repeat(64), 'ff'.repeat(40), 'ab'.repeat(64)), modexpInput('07'.repeat(200), '010001', 'fd'.repeat(200))];
    for (const [i, input] of inputs.entries()) {
      const [out, outAnvil] = await both('eth_call', [{ to: MODEXP, data: input }, 'latest']);
      assert.equal(out, outAnvil);
      const [gas, gasAnvil] = await both('eth_estimateGas', [{ from: ADDRS[1], to: MODEXP, data: input }]);
      assert.equal(gas, gasAnvil, `gas of ${input.slice(0, 20)}…`);
      // The smallest input costs less than its calldata floor (EIP-7623) at either fork.
      if (i === 0) continue;
      const before = BigInt(await prague.rpc('eth_estimateGas', [{ from: ADDRS[1], to: MODEXP, data: input }]));
      assert.ok(BigInt(gas) > before, `Osaka prices MODEXP higher: ${BigInt(gas)} against ${before}`);
    }
    // A mined transaction, as anvil's.
    const [a, b] = await mineBoth({ to: MODEXP, data: inputs[2], gasLimit: 1_000_000n });
    assert.equal(a.gasUsed, b.gasUsed);
  });
});
