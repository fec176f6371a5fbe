/**
 * The owners of the node's state (core/owner.ts), in process, no server: each owner's snapshot,
 * restore and reset; evm_snapshot / evm_revert / anvil_reset covering every registered owner; and
 * the rule that makes a new field safe — an owner's record is copied whole, so every key of every
 * record owner is set here, snapshotted, changed, restored and compared, and a field added later is
 * checked the same way without touching this file.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAddressFromString } from '@ethereumjs/util';
import { defaultConfig } from '../../src/chain/core/config.js';
import { RecordOwner } from '../../src/chain/core/owner.js';
import { LATEST } from '../../src/chain/core/types.js';
import { DevNode } from '../../src/chain/node.js';
import { NextBlock } from '../../src/chain/owners/nextBlock.js';
import { ADDRS } from '../support/node.js';

const A = createAddressFromString(ADDRS[0]);
const B = createAddressFromString(ADDRS[1]);
const C = createAddressFromString(ADDRS[2]);

/**
 * Owners that do not keep their state in one record, each with its own test below. A new owner
 * that is neither a record owner nor listed here fails the coverage test until it gets one.
 */
const TESTED_ONE_BY_ONE = new Set(['head', 'pool', 'accounts', 'filters']);

/** Record owners whose reset keeps the record, and why (the others go back to a fresh node's record). */
const KEPT_ON_RESET = new Set(['miningMode']);

/** The record of a record owner, writable (tests only: owners write it through their methods). */
function recordOf(o: RecordOwner<object>): Record<string, unknown> {
  return (o as unknown as { s: Record<string, unknown> }).s;
}

/** Stop an owner's follow-up to a new record (timers), which arbitrary test values would start. */
function quiet(o: RecordOwner<object>): void {
  (o as unknown as { restored: () => void }).restored = () => {};
}

function recordOwners(node: DevNode): RecordOwner<object>[] {
  return node.owners.all().filter((o): o is RecordOwner<object> => o instanceof RecordOwner);
}

describe('owners', () => {
  let node: DevNode;
  before(async () => {
    node = await DevNode.create(defaultConfig({ accounts: 3 }));
  });
  after(() => node.close());

  test('every owner is registered once, and each is a record owner or has its own test here', () => {
    const names = node.owners.all().map((o) => o.name);
    assert.deepEqual(new Set(names).size, names.length);
    for (const want of ['head', 'pool', 'nextBlock', 'fees', 'accounts', 'miningMode', 'filters']) assert.ok(names.includes(want), `${want} is an owner`);
    for (const o of node.owners.all()) {
      assert.ok(o instanceof RecordOwner || TESTED_ONE_BY_ONE.has(o.name), `owner ${o.name} keeps no single record and has no test of its own`);
    }
  });

  test('a record owner snapshots, restores and resets every field of its record', async () => {
    const fresh = await DevNode.create(defaultConfig({ accounts: 3 }));
    try {
      const owners = recordOwners(node);
      assert.ok(owners.length >= 3);
      for (const o of owners) {
        const rec = recordOf(o);
        const keys = Object.keys(rec);
        assert.ok(keys.length > 0, `${o.name} has a record`);
        const saved = o.snapshot();
        try {
          quiet(o);
          const first = Object.fromEntries(keys.map((k) => [k, Symbol(`${o.name}.${k} first`)]));
          for (const k of keys) rec[k] = first[k];
          const snap = o.snapshot() as Record<string, unknown>;
          assert.deepEqual(Object.keys(snap).sort(), [...keys].sort(), `${o.name}: the snapshot holds every field`);
          const live = recordOf(o);
          for (const k of keys) live[k] = Symbol(`${o.name}.${k} second`);
          o.restore(snap as never);
          const back = recordOf(o);
          for (const k of keys) assert.equal(back[k], first[k], `${o.name}.${k} restored`);
          // The snapshot is a copy: changing the live record after restoring leaves it as taken.
          back[keys[0]] = Symbol('third');
          assert.equal(snap[keys[0]], first[keys[0]], `${o.name}: a snapshot does not share the live record`);
          o.reset();
          const reset = recordOf(o);
          if (KEPT_ON_RESET.has(o.name)) {
            for (const k of keys.slice(1)) assert.equal(reset[k], first[k], `${o.name}.${k} kept by reset`);
          } else {
            const want = (fresh.owners.all().find((f) => f.name === o.name) as RecordOwner<object>).record();
            assert.deepEqual(reset, want, `${o.name}: reset gives a fresh node's record`);
          }
        } finally {
          delete (o as unknown as { restored?: unknown }).restored;
          o.restore(saved as never);
        }
      }
    } finally {
      fresh.close();
    }
  });

  test('a newly registered owner is covered by evm_snapshot, evm_revert and anvil_reset', async () => {
    const n = await DevNode.create(defaultConfig({ accounts: 2 }));
    try {
      class Counter extends RecordOwner<{ count: number; label: string; seen: bigint | undefined }> {
        constructor() {
          super('counter', () => ({ count: 0, label: 'start', seen: undefined }));
        }
        bump(): void {
          this.s.count++;
          this.s.label = `at ${this.s.count}`;
          this.s.seen = BigInt(this.s.count);
        }
      }
      const counter = n.owners.add(new Counter());
      // Changes go in request order, as the controls' do.
      const bump = () => n.inOrder(() => counter.bump());
      await bump();
      const snap = n.history.snapshot();
      await bump();
      await bump();
      assert.equal(counter.record().count, 3);
      assert.equal(await n.history.revert(snap), true);
      assert.deepEqual(counter.record(), { count: 1, label: 'at 1', seen: 1n });
      await bump();
      // A snapshot taken before an owner was registered holds nothing of it: a revert leaves it be.
      const older = n.history.snapshot();
      await n.history.snapshotBlock(older);
      class Late extends RecordOwner<{ on: boolean }> {
        constructor() {
          super('late', () => ({ on: false }));
        }
        set(on: boolean): void {
          this.s.on = on;
        }
      }
      const late = n.owners.add(new Late());
      await n.inOrder(() => late.set(true));
      assert.equal(await n.history.revert(older), true);
      assert.deepEqual(late.record(), { on: true });
      assert.deepEqual(counter.record(), { count: 2, label: 'at 2', seen: 2n });
      await n.history.reset();
      assert.deepEqual(counter.record(), { count: 0, label: 'start', seen: undefined });
      assert.deepEqual(late.record(), { on: false });
      assert.throws(() => n.owners.add(new Counter()), /registered twice/);
    } finally {
      n.close();
    }
  });
});

describe('each owner through the node', () => {
  let node: DevNode;
  before(async () => {
    node = await DevNode.create(defaultConfig({ accounts: 3 }));
  });
  after(() => node.close());

  test('head: a revert drops the blocks and state since the snapshot; a reset goes back to genesis', async () => {
    const start = node.store.headNumber;
    const balance = (await node.getAccount(B, LATEST)).balance;
    const snap = node.history.snapshot();
    await node.intake.sendTransaction({ from: A, to: B, value: 5n });
    assert.equal(node.store.headNumber, start + 1n);
    assert.equal(await node.history.revert(snap), true);
    assert.equal(node.store.headNumber, start);
    assert.equal((await node.getAccount(B, LATEST)).balance, balance);
    await node.intake.sendTransaction({ from: A, to: B, value: 5n });
    const id = node.instanceId;
    await node.history.reset();
    assert.equal(node.store.headNumber, 0n);
    assert.equal((await node.getAccount(B, LATEST)).balance, balance);
    assert.notEqual(node.instanceId, id);
  });

  test('pool: a revert brings back the waiting transactions; a reset drops them and says so', async () => {
    await node.miner.setAutomine(false);
    try {
      await node.intake.sendTransaction({ from: A, to: B, value: 1n });
      const snap = node.history.snapshot();
      await node.intake.sendTransaction({ from: A, to: B, value: 2n });
      assert.equal(node.pool.size, 2);
      await node.history.revert(snap);
      assert.deepEqual(node.pool.all().map((p) => p.tx.value), [1n]);
      const dropped: string[] = [];
      const onDropped = (_: unknown, reason: string) => dropped.push(reason);
      node.events.on('dropped', onDropped);
      await node.history.reset();
      node.events.off('dropped', onDropped);
      assert.equal(node.pool.size, 0);
      assert.deepEqual(dropped, ['reset']);
    } finally {
      await node.miner.setAutomine(true);
    }
  });

  test('next block: clock, coinbase, gas limit, prevrandao and base fee come back with a revert and go with a reset', async () => {
    const defaults = node.clock.snapshot();
    const snap = node.history.snapshot();
    await node.controls.increaseTime(100n);
    await node.controls.setCoinbase(C);
    await node.controls.setBlockGasLimit(1_000_000n);
    await node.controls.setPrevRandao(new Uint8Array(32).fill(7));
    await node.controls.setNextBaseFee(3n);
    await node.controls.setTimestampInterval(5n);
    assert.equal(node.coinbase.toString(), C.toString());
    await node.history.revert(snap);
    assert.deepEqual(node.clock.record(), defaults);
    await node.controls.setCoinbase(C);
    await node.controls.setTimestampInterval(5n);
    await node.history.reset();
    assert.deepEqual(node.clock.record(), defaults);
  });

  test('fees: the gas price floor comes back with a revert and with a reset', async () => {
    const floor = node.fees.floor;
    const snap = node.history.snapshot();
    await node.controls.setMinGasPrice(floor * 100n);
    assert.ok(node.gasPrice() >= floor * 100n);
    await node.history.revert(snap);
    assert.equal(node.fees.floor, floor);
    await node.controls.setMinGasPrice(1n);
    await node.history.reset();
    assert.equal(node.fees.floor, floor);
  });

  test('accounts: impersonation outlives a revert (as in anvil and hardhat) and ends with a reset', async () => {
    const stranger = createAddressFromString('0x00000000000000000000000000000000000000aa');
    const snap = node.history.snapshot();
    await node.controls.impersonate(stranger, true);
    await node.controls.autoImpersonate(true);
    await node.history.revert(snap);
    assert.equal(node.wallet.isImpersonated(stranger.toString()), true);
    assert.equal(node.wallet.autoImpersonate, true);
    await node.history.reset();
    assert.equal(node.wallet.isImpersonated(stranger.toString()), false);
    assert.equal(node.wallet.autoImpersonate, false);
    assert.equal(node.wallet.keys.size, 3);
  });

  test('mining mode: a revert restores automine, order and interval mining; a reset keeps the mode', async () => {
    const snap = node.history.snapshot();
    await node.controls.intervalMining(60_000);
    node.mining.setOrder('fifo');
    assert.equal(node.mining.auto, false);
    await node.history.revert(snap);
    assert.equal(node.mining.auto, true);
    assert.equal(node.mining.intervalMs, undefined);
    assert.equal(node.mining.order, 'fees');
    node.mining.setOrder('fifo');
    await node.controls.intervalMining(60_000);
    await node.history.reset();
    assert.equal(node.mining.order, 'fifo');
    assert.equal(node.mining.intervalMs, 60_000);
    node.mining.setInterval(0);
    node.mining.setOrder('fees');
    await node.miner.setAutomine(true);
  });

  test('filters: installed filters stay through a revert and a reset, and hear of the dropped blocks', async () => {
    const id = node.filters.newBlockFilter();
    const snap = node.history.snapshot();
    await node.intake.sendTransaction({ from: A, to: B, value: 1n });
    await node.history.revert(snap);
    await node.history.reset();
    assert.ok(await node.filters.changes(id));
    assert.equal(node.filters.uninstall(id), true);
  });
});

describe('the clock', () => {
  test('a one-shot timestamp is used once, and later blocks continue from it', () => {
    let wall = 1000n;
    const clock = new NextBlock(30_000_000n, () => wall);
    assert.equal(clock.peek(990n), 1000n);
    clock.setNext(2000n, 990n);
    assert.equal(clock.next(990n), 2000n);
    assert.equal(clock.nextTimestamp, undefined);
    wall += 10n;
    assert.equal(clock.now(), 2010n);
    assert.throws(() => clock.setNext(5n, 2000n), /not greater than the latest block's timestamp/);
  });
});
