import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AbiCoder, Interface, getAddress, hexlify, id } from 'ethers';
import { CONSOLE_ADDRESS, decodeConsoleLog } from '../../src/chain/exec/console.js';
import type { MinedTx } from '../../src/chain/core/types.js';
import { ADDRS, artifact, startTestNode, type TestNode } from '../support/node.js';

const coder = AbiCoder.defaultAbiCoder();

/** Calldata of `log(<types>)` as console.sol builds it (abi.encodeWithSignature). */
function logCall(types: string[], values: unknown[], spelling = `log(${types.join(',')})`): Uint8Array {
  const hex = id(spelling).slice(0, 10) + coder.encode(types, values).slice(2);
  return Buffer.from(hex.slice(2), 'hex');
}

const SAMPLES: Record<string, [unknown, string]> = {
  uint256: [123456789012345678901234567890n, '123456789012345678901234567890'],
  int256: [-42n, '-42'],
  string: ['hé llo', 'hé llo'],
  bool: [true, 'true'],
  address: [ADDRS[1].toLowerCase(), ADDRS[1]],
};

describe('console.log decoding', () => {
  test('every 2-4 argument signature of uint256, int256, string, bool and address', () => {
    const base = Object.keys(SAMPLES);
    let count = 0;
    const walk = (types: string[]) => {
      if (types.length >= 2) {
        // A leading string would be a format string: use one without specifiers.
        const values = types.map((t) => SAMPLES[t][0]);
        const expected = types.map((t) => SAMPLES[t][1]).join(' ');
        assert.equal(decodeConsoleLog(logCall(types, values)), expected, `log(${types})`);
        count++;
      }
      if (types.length < 4) for (const t of base) walk([...types, t]);
    };
    walk([]);
    assert.equal(count, 25 + 125 + 625);
  });

  test('no-argument, single-argument and bytes forms', () => {
    assert.equal(decodeConsoleLog(logCall([], [])), '');
    for (const [t, [v, text]] of Object.entries(SAMPLES)) assert.equal(decodeConsoleLog(logCall([t], [v])), text, t);
    assert.equal(decodeConsoleLog(logCall(['bytes'], ['0xdeadbeef00'])), '0xdeadbeef00');
    assert.equal(decodeConsoleLog(logCall(['bytes'], ['0x'])), '0x');
    for (let n = 1; n <= 32; n++) {
      const v = '0x' + 'ab'.repeat(n);
      assert.equal(decodeConsoleLog(logCall([`bytes${n}`], [v])), v, `bytes${n}`);
    }
    assert.equal(decodeConsoleLog(logCall(['int256'], [-(2n ** 255n)])), (-(2n ** 255n)).toString());
    assert.equal(decodeConsoleLog(logCall(['bool'], [false])), 'false');
  });

  test('legacy selectors hashed with uint/int/byte decode the same way', () => {
    assert.equal(decodeConsoleLog(logCall(['uint256'], [7n], 'log(uint)')), '7');
    assert.equal(decodeConsoleLog(logCall(['string', 'uint256'], ['n', 7n], 'log(string,uint)')), 'n 7');
    assert.equal(decodeConsoleLog(logCall(['uint256', 'uint256', 'bool', 'address'], [1n, 2n, true, ADDRS[0]], 'log(uint,uint,bool,address)')), `1 2 true ${ADDRS[0]}`);
    assert.equal(decodeConsoleLog(logCall(['bytes1'], ['0x61'], 'log(byte)')), '0x61');
  });

  test('format specifiers in a leading string consume the following arguments', () => {
    assert.equal(decodeConsoleLog(logCall(['string', 'string', 'uint256'], ['%s has %d tokens', 'alice', 5n])), 'alice has 5 tokens');
    assert.equal(decodeConsoleLog(logCall(['string', 'uint256'], ['100%% of %i', 3n])), '100% of 3');
    assert.equal(decodeConsoleLog(logCall(['string', 'uint256'], ['hex %x', 255n])), 'hex 0xff');
    assert.equal(decodeConsoleLog(logCall(['string', 'uint256', 'bool'], ['only %s', 1n, true])), 'only 1 true', 'extra arguments are appended');
    assert.equal(decodeConsoleLog(logCall(['string', 'uint256'], ['%s %s', 1n])), '1 %s', 'missing arguments leave the specifier');
    assert.equal(decodeConsoleLog(logCall(['string'], ['50%% %s'])), '50%% %s', 'a lone string is printed as is');
  });

  test('unknown selectors and malformed calldata print nothing', () => {
    assert.equal(decodeConsoleLog(Buffer.from('12345678', 'hex')), undefined);
    assert.equal(decodeConsoleLog(Buffer.from('1234', 'hex')), undefined);
    const truncated = logCall(['string'], ['hello']).subarray(0, 40);
    assert.equal(decodeConsoleLog(truncated), undefined);
    const badOffset = logCall(['uint256', 'uint256'], [1n, 2n]);
    badOffset.set(id('log(string,uint256)').slice(2, 10).match(/../g)!.map((b) => parseInt(b, 16)), 0);
    assert.equal(decodeConsoleLog(badOffset), undefined, 'string offset past the end');
  });
});

describe('console.log from mined transactions', () => {
  let n: TestNode;
  let user: string;
  const user_ = new Interface(artifact('ConsoleUser').abi);
  const events: Array<[MinedTx, string[]]> = [];

  before(async () => {
    n = await startTestNode();
    n.node.events.on('console', (tx, lines) => events.push([tx, lines]));
    const h = await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], data: artifact('ConsoleUser').bytecode }]);
    user = (await n.rpc('eth_getTransactionReceipt', [h])).contractAddress;
  });
  after(async () => {
    await n.close();
  });

  test('lines of nested console calls are emitted for their transaction, before its block', async () => {
    events.length = 0;
    let blockSeen = false;
    let consoleBeforeBlock = false;
    const onBlock = () => {
      blockSeen = true;
    };
    const onConsole = () => {
      consoleBeforeBlock = !blockSeen;
    };
    n.node.events.on('block', onBlock);
    n.node.events.on('console', onConsole);
    try {
      const h = await n.rpc('eth_sendTransaction', [{ from: ADDRS[1], to: user, data: user_.encodeFunctionData('hello', [5]) }]);
      assert.equal(events.length, 1);
      assert.equal(events[0][0].hashHex, h);
      assert.deepEqual(events[0][1], ['hello 5', getAddress(ADDRS[1]), 'true', 'two strings second']);
      assert.ok(consoleBeforeBlock);
    } finally {
      n.node.events.off('block', onBlock);
      n.node.events.off('console', onConsole);
    }
  });

  test('the console call costs what it costs on a chain without the hook', async () => {
    const data = user_.encodeFunctionData('hello', [9]);
    const estimate = BigInt(await n.rpc('eth_estimateGas', [{ from: ADDRS[2], to: user, data }]));
    const h = await n.rpc('eth_sendTransaction', [{ from: ADDRS[2], to: user, data, gas: '0x' + estimate.toString(16) }]);
    const r = await n.rpc('eth_getTransactionReceipt', [h]);
    assert.equal(r.status, '0x1', 'the estimate (made without the hook) is enough with it');
    // The call frames to the console address are ordinary calls in the trace.
    const trace = await n.rpc('debug_traceTransaction', [h, { tracer: 'callTracer' }]);
    assert.equal(trace.calls.length, 4);
    for (const c of trace.calls) {
      assert.equal(c.type, 'STATICCALL');
      assert.equal(c.to, CONSOLE_ADDRESS);
    }
  });

  test('several transactions in one block each get their own lines; silent ones get none', async () => {
    events.length = 0;
    await n.node.miner.setAutomine(false);
    try {
      const a = await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: user, data: user_.encodeFunctionData('hello', [1]) }]);
      const plain = await n.rpc('eth_sendTransaction', [{ from: ADDRS[1], to: ADDRS[2], value: '0x1' }]);
      // Straight to the console address from an account: a top-level console call.
      const direct = await n.rpc('eth_sendTransaction', [{ from: ADDRS[2], to: CONSOLE_ADDRESS, data: hexlify(logCall(['string', 'int256'], ['direct', -1n])) }]);
      const block = await n.node.miner.mineNow();
      assert.deepEqual(
        block.txs.map((t) => t.hashHex),
        [a, plain, direct],
      );
      assert.deepEqual(
        events.map(([t, lines]) => [t.hashHex, lines]),
        [
          [a, ['hello 1', getAddress(ADDRS[0]), 'true', 'two strings second']],
          [direct, ['direct -1']],
        ],
      );
    } finally {
      await n.node.miner.setAutomine(true);
    }
  });

  test('eth_call does not print, and the EVM hook exists only while mining with a listener', async () => {
    events.length = 0;
    await n.rpc('eth_call', [{ from: ADDRS[0], to: user, data: user_.encodeFunctionData('hello', [3]) }]);
    assert.equal(events.length, 0);

    type Emitter = { on(e: string, f: unknown): unknown; listenerCount(e: string): number };
    const evmEvents = (n.node as unknown as { vm: { evm: { events: Emitter } } }).vm.evm.events;
    const on = evmEvents.on;
    let hooked = 0;
    evmEvents.on = function (this: Emitter, e: string, f: unknown) {
      if (e === 'beforeMessage') hooked++;
      return on.call(this, e, f);
    };
    const listeners = n.node.events.listeners('console') as Array<(tx: MinedTx, lines: string[]) => void>;
    try {
      const call = { from: ADDRS[0], to: user, data: user_.encodeFunctionData('hello', [4]) };
      await n.rpc('eth_sendTransaction', [call]);
      assert.equal(hooked, 1, 'hooked for the block while someone listens');
      n.node.events.removeAllListeners('console');
      await n.rpc('eth_sendTransaction', [call]);
      assert.equal(hooked, 1, 'not hooked without a listener');
      assert.equal(evmEvents.listenerCount('beforeMessage'), 0, 'unhooked after the block');
    } finally {
      evmEvents.on = on;
      for (const l of listeners) n.node.events.on('console', l);
    }
  });
});
