import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { BIN, startCli } from '../support/cli.js';
import { ADDRS } from '../support/node.js';
import { sleep } from './helpers.js';
import { tempDir } from '../support/tmp.js';

const OTHER = '0x00000000000000000000000000000000000000f1';

/** Run to completion (startup failures); resolves to exit code and output. */
async function runToExit(args: string[]): Promise<{ code: number | null; out: string }> {
  const proc = spawn(process.execPath, [BIN, 'dev', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
  const [code] = await once(proc, 'exit');
  clearTimeout(timer);
  return { code: code as number | null, out };
}

const tmp = () => tempDir('node-rpc-cli-');

describe('node-rpc dev: state files and mining flags', () => {
  test('SIGTERM dumps the state; a new process loads it back exactly', async () => {
    const file = join(tmp(), 'chain.json');
    const a = await startCli(['--dump-state', file]);
    let head: any;
    let receipt: any;
    try {
      const hash = await a.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: OTHER, value: '0x1234' }]);
      receipt = await a.rpc('eth_getTransactionReceipt', [hash]);
      await a.rpc('anvil_mine', ['0x3e8']);
      await a.rpc('anvil_setStorageAt', [OTHER, '0x1', '0x05']);
      head = await a.rpc('eth_getBlockByNumber', ['latest', false]);
    } finally {
      assert.equal(await a.stop(), 0);
    }
    assert.match(a.output(), new RegExp(`State written to ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(doc.nodeRpc.version, 2, "anvil's format, with this node's field");
    assert.equal(doc.best_block_number, 1001);

    const b = await startCli(['--load-state', file]);
    try {
      assert.match(b.output(), /Loaded state from .*chain up to block #1001/);
      assert.deepEqual(await b.rpc('eth_getBlockByNumber', ['latest', false]), head);
      assert.deepEqual(await b.rpc('eth_getTransactionReceipt', [receipt.transactionHash]), receipt);
      assert.equal(await b.rpc('eth_getBalance', [OTHER, 'latest']), '0x1234');
      assert.equal(await b.rpc('eth_getStorageAt', [OTHER, '0x1', 'latest']), '0x' + '0'.repeat(63) + '5');
      // The chain goes on from there.
      const next = await b.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: OTHER, value: '0x1' }]);
      assert.equal((await b.rpc('eth_getTransactionReceipt', [next])).blockNumber, '0x3ea');
    } finally {
      assert.equal(await b.stop(), 0);
    }
  });

  test('--state loads when the file exists and writes on exit; --state-interval writes while running', async () => {
    const file = join(tmp(), 'state.json');
    const a = await startCli(['--state', file, '--state-interval', '0.3']);
    try {
      await a.rpc('anvil_setBalance', [OTHER, '0x77']);
      const deadline = Date.now() + 5000;
      while (!existsSync(file) || !readFileSync(file, 'utf8').includes('"0x77"')) {
        assert.ok(Date.now() < deadline, 'no periodic dump');
        await sleep(50);
      }
      await a.rpc('anvil_setBalance', [OTHER, '0x88']);
    } finally {
      assert.equal(await a.stop(), 0);
    }
    const b = await startCli(['--state', file]);
    try {
      assert.equal(await b.rpc('eth_getBalance', [OTHER, 'latest']), '0x88');
    } finally {
      await b.stop();
    }
  });

  test('a corrupt or wrong-version state file stops the start with a clear error and is not overwritten', async () => {
    const dir = tmp();
    const corrupt = join(dir, 'corrupt.json');
    writeFileSync(corrupt, '{"version":1,"accounts":');
    const r1 = await runToExit(['--state', corrupt]);
    assert.notEqual(r1.code, 0);
    assert.match(r1.out, /corrupt\.json: not valid JSON/);
    assert.equal(readFileSync(corrupt, 'utf8'), '{"version":1,"accounts":');

    const future = join(dir, 'future.json');
    writeFileSync(future, JSON.stringify({ version: 99, accounts: {} }));
    const r2 = await runToExit(['--load-state', future, '--dump-state', future]);
    assert.notEqual(r2.code, 0);
    assert.match(r2.out, /unsupported state version 99: this node reads version 1/);
    assert.equal(readFileSync(future, 'utf8'), JSON.stringify({ version: 99, accounts: {} }));

    const r3 = await runToExit(['--load-state', join(dir, 'nothing.json')]);
    assert.notEqual(r3.code, 0);
    assert.match(r3.out, /nothing\.json: no such file/);
  });

  test('--block-time mines on an interval (fractions allowed); --no-mining --order fifo waits for evm_mine', async () => {
    const a = await startCli(['--block-time', '0.25']);
    try {
      assert.equal(await a.rpc('anvil_getAutomine'), false);
      assert.equal(await a.rpc('anvil_getIntervalMining'), 0.25);
      const before = Number(await a.rpc('eth_blockNumber'));
      const hash = await a.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: OTHER, value: '0x1' }]);
      const early = await a.rpc('eth_getTransactionReceipt', [hash]);
      const n0 = Number(await a.rpc('eth_blockNumber'));
      // Not mined on sending: no receipt while no block has come since (on a loaded machine the
      // next interval's block can come between the send and the read).
      if (n0 === before) assert.equal(early, null);
      await sleep(1100);
      const n1 = Number(await a.rpc('eth_blockNumber'));
      assert.ok(n1 - n0 >= 3 && n1 - n0 <= 6, `expected about 4 blocks, got ${n1 - n0}`);
      assert.notEqual(await a.rpc('eth_getTransactionReceipt', [hash]), null);
    } finally {
      await a.stop();
    }

    for (const [order, first] of [
      ['fifo', 0],
      ['fees', 1],
    ] as const) {
      const b = await startCli(['--no-mining', '--order', order]);
      try {
        const cheap = await b.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: OTHER, value: '0x1', maxPriorityFeePerGas: '0x1' }]);
        const rich = await b.rpc('eth_sendTransaction', [{ from: ADDRS[1], to: OTHER, value: '0x1', maxPriorityFeePerGas: '0x3b9aca00' }]);
        assert.equal(await b.rpc('eth_blockNumber'), '0x0');
        await sleep(300);
        assert.equal(await b.rpc('eth_blockNumber'), '0x0', 'nothing is mined by itself');
        await b.rpc('evm_mine');
        const block = await b.rpc('eth_getBlockByNumber', ['latest', false]);
        assert.deepEqual(block.transactions, first === 0 ? [cheap, rich] : [rich, cheap], order);
      } finally {
        await b.stop();
      }
    }
  });

  test('bad mining flags exit non-zero naming the flag', async () => {
    for (const [args, pattern] of [
      [['--block-time', '0'], /--block-time/],
      [['--block-time', 'fast'], /--block-time/],
      [['--order', 'random'], /--order/],
      [['--state-interval', '5'], /--state-interval needs --dump-state or --state/],
    ] as Array<[string[], RegExp]>) {
      const r = await runToExit(args);
      assert.notEqual(r.code, 0, args.join(' '));
      assert.match(r.out, pattern, args.join(' '));
    }
  });

  test('anvil_setLoggingEnabled(false) silences the request log', async () => {
    const a = await startCli([]);
    try {
      await a.rpc('eth_chainId');
      await sleep(200);
      assert.match(a.output(), /eth_chainId/);
      await a.rpc('anvil_setLoggingEnabled', [false]);
      await a.rpc('web3_clientVersion');
      await a.rpc('evm_mine');
      await sleep(250);
      assert.doesNotMatch(a.output(), /web3_clientVersion/);
      assert.doesNotMatch(a.output(), /block #1 /);
      await a.rpc('anvil_setLoggingEnabled', [true]);
      await a.rpc('net_version');
      await sleep(250);
      assert.match(a.output(), /net_version/);
    } finally {
      await a.stop();
    }
  });
});
