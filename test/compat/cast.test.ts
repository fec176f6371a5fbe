/**
 * Foundry's cast (from @foundry-rs/cast-linux-amd64) against `node-rpc dev`: the everyday commands,
 * and `cast run` replaying a transaction whose sender was funded by anvil_setBalance.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { artifact, KEYS } from '../support/node.js';
import { startCli, type CliNode } from '../support/cli.js';

const CAST = join(dirname(createRequire(import.meta.url).resolve('@foundry-rs/cast-linux-amd64/package.json')), 'bin', 'cast');
const ALICE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
// Foundry caches what `cast run` reads per chain id and block in ~/.foundry/cache; every dev
// chain is chain 984 with the same block numbers, so a HOME of its own keeps an earlier run's
// accounts from being replayed here (cast then skips eth_getAccountInfo).
const HOME = mkdtempSync(join(tmpdir(), 'node-rpc-cast-'));

function cast(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(CAST, args, { timeout: 60_000, env: { ...process.env, HOME, NO_COLOR: '1', FOUNDRY_DISABLE_NIGHTLY_WARNING: '1' } }, (e, stdout, stderr) =>
      resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, out: stdout.trim(), err: stderr.trim() }),
    );
  });
}

describe('cast against node-rpc', () => {
  let node: CliNode;
  let rpc: string[];
  const ok = async (args: string[]) => {
    const r = await cast([args[0], ...rpc, ...args.slice(1)]);
    assert.equal(r.code, 0, `cast ${args.join(' ')}: ${r.err}`);
    return r.out;
  };
  before(async () => {
    node = await startCli([]);
    rpc = ['--rpc-url', node.url];
  });
  after(async () => {
    await node?.stop();
    rmSync(HOME, { recursive: true, force: true });
  });

  test('chain facts, balances, send, receipt, call, storage, code, nonce, rpc', async () => {
    assert.equal(await ok(['chain-id']), '984');
    assert.match(await ok(['client']), /^anvil-node-rpc\/v\d+\.\d+\.\d+\/[^/]+\/[^/]+$/);
    assert.equal(await ok(['balance', ALICE]), '10000000000000000000000');
    const sent = JSON.parse(await ok(['send', '--private-key', KEYS[0], ALICE, '--value', '1000', '--json']));
    assert.equal(sent.status, '0x1');
    assert.equal(await ok(['receipt', sent.transactionHash, 'status']), 'true');
    assert.equal(await ok(['nonce', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266']), '1');
    assert.equal(await ok(['balance', ALICE]), '10000000000000000001000');
    assert.equal(await ok(['block-number']), '1');
    assert.equal(await ok(['rpc', 'eth_chainId']), '"0x3d8"');
    assert.equal(await ok(['code', ALICE]), '0x');
  });

  test('a contract: deploy, call, storage, code', async () => {
    const s = artifact('Storage');
    const out = JSON.parse(await ok(['send', '--private-key', KEYS[1], '--create', s.bytecode, '--json']));
    const address = out.contractAddress as string;
    assert.ok(/^0x[0-9a-fA-F]{40}$/.test(address));
    await ok(['send', '--private-key', KEYS[1], address, 'set(uint256)', '42']);
    assert.equal(await ok(['call', address, 'number()(uint256)']), '42');
    assert.equal(BigInt(await ok(['storage', address, '0'])), 42n);
    assert.equal(await ok(['code', address]), s.deployedBytecode);
  });

  test('cast run replays a transaction from an account funded by anvil_setBalance', async () => {
    const sender = '0x00000000000000000000000000000000c0ffee05';
    await ok(['rpc', 'anvil_setBalance', sender, '0xde0b6b3a7640000']);
    await ok(['rpc', 'anvil_impersonateAccount', sender]);
    const sent = JSON.parse(await ok(['send', '--unlocked', '--from', sender, ALICE, '--value', '1234', '--json']));
    assert.equal(sent.status, '0x1');
    const run = await ok(['run', sent.transactionHash]);
    assert.match(run, /Transaction successfully executed/);
    assert.match(run, /Gas used: 21000/);
    // cast's replay usually reads the sender with eth_getAccountInfo, but in one run of the whole
    // suite it read it with eth_getCode, eth_getBalance and eth_getTransactionCount instead: so the
    // method is asked for here, and must answer the account as cast reads it.
    const info = JSON.parse(await ok(['rpc', 'eth_getAccountInfo', sender, 'latest']));
    assert.equal(BigInt(info.nonce), 1n);
    assert.equal(info.code, '0x');
    assert.ok(BigInt(info.balance) < 10n ** 18n - 1234n, `balance ${info.balance} after the transfer and its gas`);
    assert.doesNotMatch(node.output(), /eth_getAccountInfo: the method/);
  });
});
