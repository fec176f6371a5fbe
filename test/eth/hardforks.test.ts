/**
 * Every fork before shanghai against anvil at the same fork (`anvil --hardfork <fork>`): the same
 * signed transactions to both, then gas used, refunds, receipts (status or root), logs, refusals
 * and header fields compared. One exception: anvil 1.7.1 prices SSTORE before berlin with berlin's
 * numbers (0 → 1 → 2 in one frontier transaction: 20,000 + 2,900 where the Yellow Paper charges
 * 20,000 + 5,000; a fresh slot set on istanbul: 22,100 where EIP-2200 charges 20,000) and refunds
 * a cleared slot on berlin with london's 4,800 where EIP-2929 keeps 15,000, so before london the
 * SSTORE transactions are checked against the gas their EIPs give (`sstoreGas`), the rest against anvil;
 * and it refunds nothing for a SELFDESTRUCT before london, where the Yellow Paper refunds 24,000
 * (up to half the gas used): that transaction is checked for anvil's gas less the refund. The contracts are written in bytes, so each fork sees only the
 * opcodes it knows: SSTORE set / reset / clear in one transaction and across transactions (net gas
 * metering from constantinople, its removal in petersburg, EIP-2200 in istanbul, EIP-3529's refunds
 * in london), cold and warm SLOAD and BALANCE (berlin), SELFDESTRUCT's refund (gone in london),
 * CREATE's deposit (frontier's out-of-gas rule), REVERT (byzantium), SHL (constantinople), CHAINID
 * (istanbul), BASEFEE (london) and PUSH0 (shanghai) before and at their forks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Transaction, Wallet, getCreateAddress } from 'ethers';
import { KEYS, startTestNode, type TestNode } from '../support/node.js';
import { parseHardfork } from '../../src/chain/core/config.js';
import { startAnvil, type Anvil } from '../support/anvil.js';
import { watchWorkers } from '../support/workers.js';
import type { CallReply } from '../../src/chain/exec/offload/protocol.js';

interface Rpc {
  rpc<T = any>(method: string, params?: unknown[]): Promise<T>;
  raw(method: string, params?: unknown[]): Promise<{ result?: any; error?: { code: number; message: string } }>;
}

const OTHER = '0x00000000000000000000000000000000000000aa';

/** Init code returning `runtime`. */
function deployCode(runtime: string): string {
  const len = runtime.length / 2;
  const l = len.toString(16).padStart(2, '0');
  return `0x60${l}600c60003960${l}6000f3${runtime}`;
}

/** slot0 = word0, then slot0 = word1: two writes in one transaction. */
const STORE = '60003560005560203560005500';
/** SLOAD slot0 twice (cold, then warm), BALANCE of another account (cold) and of the caller (warm), LOG1 with topic 42. */
const READS = '600054506000545073' + OTHER.slice(2) + '315033315060' + '2a' + '60006000a100';
/** SELFDESTRUCT to the caller (a refund of 24,000 before london). */
const DESTRUCT = '33ff';
/** One opcode then STOP: the fork decides whether it exists. */
const op = (code: string) => code + '00';
/** INVALID (0xfe): a failed transaction on every fork. */
const FAIL = 'fe';
/** REVERT(0, 0). */
const REVERT = '60006000fd';

const word = (n: number) => n.toString(16).padStart(64, '0');

/**
 * Gas of a STORE transaction writing `first` then `second` over a slot holding `original`, by the
 * rules of its fork's EIPs: the Yellow Paper's (frontier to byzantium, and petersburg), EIP-1283's
 * net metering (constantinople), EIP-2200's (istanbul), EIP-2929's cold slot (berlin) and EIP-3529's
 * refunds (london). Intrinsic gas with EIP-2028's calldata price from istanbul.
 */
function sstoreGas(fork: string, original: number, first: number, second: number): bigint {
  const net = fork === 'constantinople' || since(fork, 'istanbul');
  const berlin = since(fork, 'berlin');
  const sloadGas = berlin ? 100 : since(fork, 'istanbul') ? 800 : 200;
  const reset = berlin ? 2900 : 5000;
  const clears = since(fork, 'london') ? 4800 : 15000;
  let cost = berlin ? 2100 : 0; // the slot's first access
  let refund = 0;
  let current = original;
  for (const value of [first, second]) {
    if (!net) {
      cost += current === 0 && value !== 0 ? 20000 : 5000;
      if (current !== 0 && value === 0) refund += 15000;
    } else if (current === value) cost += sloadGas;
    else if (original === current) {
      cost += original === 0 ? 20000 : reset;
      if (value === 0) refund += clears;
    } else {
      cost += sloadGas;
      if (original !== 0) {
        if (current === 0) refund -= clears;
        if (value === 0) refund += clears;
      }
      if (original === value) refund += original === 0 ? 20000 - sloadGas : reset - sloadGas;
    }
    current = value;
  }
  const nonZero = (first !== 0 ? 1 : 0) + (second !== 0 ? 1 : 0);
  const calldata = (64 - nonZero) * 4 + nonZero * (since(fork, 'istanbul') ? 16 : 68);
  const used = 21000 + calldata + 6 * 3 + cost;
  return BigInt(used - Math.min(refund, Math.floor(used / (since(fork, 'london') ? 5 : 2))));
}

interface Case {
  anvil: string;
  ours: string;
}
const FORKS: Case[] = [
  { anvil: 'frontier', ours: 'frontier' },
  { anvil: 'homestead', ours: 'homestead' },
  { anvil: 'tangerine', ours: 'tangerineWhistle' },
  { anvil: 'spuriousdragon', ours: 'spuriousDragon' },
  { anvil: 'byzantium', ours: 'byzantium' },
  { anvil: 'constantinople', ours: 'constantinople' },
  { anvil: 'petersburg', ours: 'petersburg' },
  { anvil: 'istanbul', ours: 'istanbul' },
  { anvil: 'berlin', ours: 'berlin' },
  { anvil: 'london', ours: 'london' },
  { anvil: 'paris', ours: 'merge' },
];
const AT_LEAST: Record<string, number> = Object.fromEntries(FORKS.map((f, i) => [f.anvil, i]));
const since = (fork: string, first: string) => AT_LEAST[fork] >= AT_LEAST[first];

for (const fork of FORKS) {
  describe(`--hardfork ${fork.ours} against anvil --hardfork ${fork.anvil}`, () => {
    let ours: TestNode;
    let anvil: Anvil;
    const nodes: Rpc[] = [];
    const w = new Wallet(KEYS[0]);
    let nonce = 0;
    const protectedTx = since(fork.anvil, 'spuriousdragon');
    const london = since(fork.anvil, 'london');
    const sent: Array<{ what: string; receipts: [any, any] }> = [];
    const replies: CallReply['kind'][] = [];

    async function sign(tx: Record<string, unknown>): Promise<string> {
      // Before spurious dragon a transaction carries no chain id (EIP-155 came with it).
      return w.signTransaction(Transaction.from({ type: 0, chainId: protectedTx ? 984n : 0n, gasPrice: 10n ** 10n, nonce: nonce++, gasLimit: 200_000n, ...tx }));
    }

    /** The same signed transaction to both nodes; both receipts. */
    async function send(what: string, tx: Record<string, unknown>): Promise<[any, any]> {
      const raw = await sign(tx);
      const receipts = (await Promise.all(
        nodes.map(async (n) => {
          const hash = await n.rpc('eth_sendRawTransaction', [raw]);
          let receipt = null;
          for (let i = 0; i < 400 && !receipt; i++) {
            receipt = await n.rpc('eth_getTransactionReceipt', [hash]);
            if (!receipt) await new Promise((r) => setTimeout(r, 10));
          }
          return receipt;
        }),
      )) as [any, any];
      sent.push({ what, receipts });
      return receipts;
    }

    before(async () => {
      ours = await startTestNode({ chain: { hardfork: parseHardfork(fork.ours)! }, callWorkers: 1 });
      watchWorkers(ours.node.callWorkers!, replies, true);
      anvil = await startAnvil(['--hardfork', fork.anvil, '--steps-tracing']);
      nodes.push(ours, anvil);
    });
    after(async () => {
      await ours?.close();
      await anvil?.close();
    });

    test('the same transactions use the same gas, refunds included, with the same receipts', async () => {
      const [store] = await send('deploy STORE', { data: deployCode(STORE) });
      const storeAt = getCreateAddress({ from: w.address, nonce: 0 });
      assert.equal(store.contractAddress, storeAt.toLowerCase());
      // 0 → 1 → 2 in one transaction, then 2 → 2 → 0 (the refund), 0 → 5 → 0 (set and cleared), 0 → 0 → 7.
      const stores: Array<[number, number, number]> = [[0, 1, 2], [2, 2, 0], [0, 5, 0], [0, 0, 7]];
      for (const [original, first, second] of stores) {
        const [a] = await send(`store ${first},${second}`, { to: storeAt, data: '0x' + word(first) + word(second) });
        assert.equal(BigInt(a.gasUsed), sstoreGas(fork.anvil, original, first, second), `SSTORE ${original} → ${first} → ${second}`);
      }
      await send('deploy DESTRUCT', { data: deployCode(DESTRUCT) });
      await send('selfdestruct', { to: getCreateAddress({ from: w.address, nonce: 5 }) });
      // Not enough gas for the code deposit: frontier keeps an empty account, homestead fails.
      await send('deposit short of gas', { data: deployCode(READS), gasLimit: since(fork.anvil, 'homestead') ? 60_000n : 30_000n });
      await send('deploy FAIL', { data: deployCode(FAIL) });
      await send('invalid', { to: getCreateAddress({ from: w.address, nonce: 8 }), gasLimit: 50_000n });
      const readsAt = getCreateAddress({ from: w.address, nonce });
      await send('deploy READS', { data: deployCode(READS) });
      await send('reads', { to: readsAt });
      await send('transfer', { to: OTHER, value: 1n, gasLimit: 21_000n });
      for (const [name, code] of [['REVERT', REVERT], ['SHL', op('600160011b')], ['CHAINID', op('46')], ['BASEFEE', op('48')], ['PUSH0', op('5f')]]) {
        const at = getCreateAddress({ from: w.address, nonce });
        await send(`deploy ${name}`, { data: deployCode(code) });
        await send(`run ${name}`, { to: at, gasLimit: 50_000n });
      }
      for (const { what, receipts: [a, b] } of sent) {
        const gasFields = what.startsWith('store ') && !london ? [] : ['gasUsed', 'cumulativeGasUsed'];
        if (what === 'selfdestruct' && !london) {
          gasFields.length = 0;
          const used = Number(b.gasUsed);
          assert.equal(Number(a.gasUsed), used - Math.min(24000, Math.floor(used / 2)), 'SELFDESTRUCT refunds 24,000 before london');
        }
        for (const f of [...gasFields, 'contractAddress', 'effectiveGasPrice', 'type', 'logsBloom']) assert.equal(a[f], b[f], `${what}: ${f}`);
        assert.deepEqual(
          a.logs.map((l: any) => [l.address, l.topics, l.data]),
          b.logs.map((l: any) => [l.address, l.topics, l.data]),
          `${what}: logs`,
        );
        if (since(fork.anvil, 'byzantium')) {
          assert.equal(a.status, b.status, `${what}: status`);
          assert.equal(a.root, undefined, `${what}: no root from byzantium on`);
        } else {
          // Before byzantium a receipt carries the state root after the transaction, no status (EIP-658).
          assert.equal(a.status, undefined, `${what}: no status before byzantium`);
          assert.match(a.root, /^0x[0-9a-f]{64}$/, `${what}: root`);
        }
      }
      // The opcodes each fork brought: a run fails (all its gas used) before the fork, not from it.
      const ran = (name: string) => sent.find((s) => s.what === `run ${name}`)!.receipts[0];
      const okFrom: Record<string, string> = { SHL: 'constantinople', CHAINID: 'istanbul', BASEFEE: 'london' };
      for (const [name, first] of Object.entries(okFrom)) {
        assert.equal(BigInt(ran(name).gasUsed) < 50_000n, since(fork.anvil, first), `${name} on ${fork.ours}`);
      }
      assert.equal(ran('PUSH0').gasUsed, '0xc350', 'PUSH0 is invalid before shanghai');
    });

    test('storage and balances agree after them', async () => {
      const storeAt = getCreateAddress({ from: w.address, nonce: 0 });
      const [a, b] = await Promise.all(nodes.map((n) => n.rpc('eth_getStorageAt', [storeAt, '0x0', 'latest'])));
      assert.equal(a, b);
      const [x, y] = await Promise.all(nodes.map((n) => n.rpc('eth_getBalance', [OTHER, 'latest'])));
      assert.equal(x, y);
      const [c, d] = await Promise.all(nodes.map((n) => n.rpc('eth_getCode', [getCreateAddress({ from: w.address, nonce: 7 }), 'latest'])));
      assert.equal(c, d, 'the deposit short of gas');
    });

    test('traces step through the fork\'s opcodes at its prices, as anvil\'s', async () => {
      const hash = (what: string) => sent.find((s) => s.what === what)!.receipts.map((r) => r.transactionHash);
      for (const what of ['reads', 'store 2,0', 'selfdestruct', 'run SHL', 'run CHAINID', 'run PUSH0']) {
        const [a, b] = await Promise.all(nodes.map((n, i) => n.rpc('debug_traceTransaction', [hash(what)[i], {}])));
        const steps = (t: any) => t.structLogs.map((l: any) => `${l.op}:${l.gasCost}`);
        const sstore = what.startsWith('store') && !london;
        assert.equal(a.failed, b.failed, `${what}: failed`);
        if (!sstore && what !== 'selfdestruct') assert.equal(a.gas, b.gas, `${what}: gas`);
        assert.equal(a.gas, Number(sent.find((s) => s.what === what)!.receipts[0].gasUsed), `${what}: the trace's gas is the receipt's`);
        // An opcode the fork lacks halts the run: geth and anvil name it by its byte's name; geth
        // logs it at no cost (an undefined opcode has no constant gas), anvil at its later price.
        const upTo = (t: any) => (t.failed ? steps(t).slice(0, -1) : steps(t));
        if (!sstore) assert.deepEqual(upTo(a), upTo(b), `${what}: steps`);
        if (a.failed && what.startsWith('run ')) {
          const [lastA, lastB] = [a, b].map((t: any) => t.structLogs[t.structLogs.length - 1]);
          assert.equal(lastA.op, lastB.op, `${what}: the opcode the fork lacks`);
          if (lastA.op !== 'INVALID') assert.equal(lastA.gasCost, 0, `${what}: geth's cost of an undefined opcode`);
          const call = await ours.rpc('debug_traceTransaction', [hash(what)[0], { tracer: 'callTracer' }]);
          assert.equal(call.error, `invalid opcode: ${lastA.op}`, `${what}: geth's error names the byte`);
        }
      }
    });

    test('calls on the call worker run the fork\'s rules', async () => {
      const workers = ours.node.callWorkers!;
      for (let i = 0; i < 200 && !workers.available(); i++) await new Promise((r) => setTimeout(r, 50));
      const before = replies.length;
      for (const name of ['SHL', 'CHAINID', 'BASEFEE', 'PUSH0', 'REVERT']) {
        const to = sent.find((s) => s.what === `deploy ${name}`)!.receipts[0].contractAddress;
        const [a, b] = await Promise.all(nodes.map((n) => n.raw('eth_call', [{ from: w.address, to, gas: '0xc350' }, 'latest'])));
        assert.equal(a.error === undefined, b.error === undefined, `${name}: ${JSON.stringify([a, b])}`);
      }
      // Before byzantium every one of them fails (REVERT included): the worker answers `failed`.
      assert.ok(replies.slice(before).some((k) => k === 'ok' || k === 'failed'), `calls ran on the worker: ${replies.slice(before)}`);
    });

    test('eth_estimateGas and eth_call agree', async () => {
      const readsAt = getCreateAddress({ from: w.address, nonce: 10 });
      // Before homestead a creation short of gas for its code deposit succeeds (with no code), so
      // the least gas that succeeds is below the deposit: only from homestead on is it compared.
      const creation = since(fork.anvil, 'homestead') ? [{ data: deployCode(READS) }] : [];
      for (const req of [{ to: readsAt }, { to: OTHER, value: '0x1' }, ...creation]) {
        const [a, b] = await Promise.all(nodes.map((n) => n.rpc('eth_estimateGas', [{ from: w.address, ...req }])));
        assert.equal(a, b, `estimate ${JSON.stringify(req)}`);
      }
      // An access list for the READS call: none before berlin (there are none), its cold slot and account from berlin on.
      const al = await ours.rpc('eth_createAccessList', [{ from: w.address, to: readsAt }]);
      assert.equal(al.accessList.length, since(fork.anvil, 'berlin') ? 2 : 0, JSON.stringify(al));
      if (london) {
        const storeAt = getCreateAddress({ from: w.address, nonce: 0 });
        const [a, b] = await Promise.all(nodes.map((n) => n.rpc('eth_estimateGas', [{ from: w.address, to: storeAt, data: '0x' + word(3) + word(0) }])));
        assert.equal(a, b, 'estimate of a refunded SSTORE');
      }
    });

    test('transaction types before their forks are refused, as anvil refuses them', async () => {
      for (const type of [1, 2]) {
        const known = type === 1 ? since(fork.anvil, 'berlin') : london;
        const raw = await w.signTransaction(
          Transaction.from({ type, chainId: 984n, nonce: 1000, gasLimit: 21_000n, to: OTHER, ...(type === 2 ? { maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n } : { gasPrice: 10n ** 10n }) }),
        );
        const [a, b] = await Promise.all(nodes.map((n) => n.raw('eth_sendRawTransaction', [raw])));
        assert.equal(a.error === undefined, b.error === undefined, `type ${type}: ${JSON.stringify([a.error, b.error])}`);
        if (!known) assert.equal(a.error?.message, `transaction type not supported: type ${type}`);
      }
      if (!london) {
        const a = await ours.raw('eth_sendTransaction', [{ from: w.address, to: OTHER, maxFeePerGas: '0x2540be400' }]);
        assert.equal(a.error?.message, 'maxFeePerGas and maxPriorityFeePerGas are not valid before London is active');
        const c = await ours.raw('eth_call', [{ from: w.address, to: OTHER, maxPriorityFeePerGas: '0x1' }]);
        assert.equal(c.error?.message, 'maxFeePerGas and maxPriorityFeePerGas are not valid before London is active');
      }
    });

    test('headers carry the fork\'s fields: a base fee from london, difficulty 0 and no withdrawals before shanghai', async () => {
      const [a, b] = await Promise.all(nodes.map((n) => n.rpc('eth_getBlockByNumber', ['latest', false])));
      assert.equal('baseFeePerGas' in a, london);
      assert.equal('baseFeePerGas' in b, london);
      if (london) assert.equal(a.baseFeePerGas !== undefined, true);
      assert.equal(a.difficulty, b.difficulty);
      for (const f of ['withdrawalsRoot', 'parentBeaconBlockRoot', 'requestsHash', 'blobGasUsed', 'excessBlobGas']) assert.equal(f in a, false, f);
      const [h0, h1] = await Promise.all(nodes.map((n) => n.rpc('eth_feeHistory', ['0x2', 'latest', [50]])));
      assert.equal(h0.baseFeePerGas.every((f: string) => f === '0x0'), !london, 'fee history base fees');
      assert.equal(h1.baseFeePerGas.every((f: string) => f === '0x0'), !london, 'anvil\'s fee history base fees');
      const info = await ours.rpc('anvil_nodeInfo');
      assert.equal(info.hardFork, (await anvil.rpc('anvil_nodeInfo')).hardFork);
    });
  });
}
