/**
 * `--config-out <file>` and `--json`: anvil's start-up JSON, written once listening (the file) or
 * printed as the one stdout line (no banner on stdout). Compared with what anvil 1.7.1 writes.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { anvilBinary, freePort } from '../support/anvil.js';
import { BIN, startCli } from '../support/cli.js';
import { ADDRS, KEYS } from '../support/node.js';

const DIR = mkdtempSync(join(tmpdir(), 'node-rpc-config-out-'));

interface JsonNode {
  proc: ChildProcess;
  facts: Record<string, any>;
  stdout(): string;
  stderr(): string;
  stop(): Promise<void>;
}

/** `node-rpc dev --port 0 --json ...args`: resolves with the first stdout line, parsed. */
async function startJson(args: string[]): Promise<JsonNode> {
  const proc = spawn(process.execPath, [BIN, 'dev', '--port', '0', '--json', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = once(proc, 'exit');
  const deadline = Date.now() + 15_000;
  while (!out.includes('\n')) {
    if (proc.exitCode !== null) throw new Error(`exited early (${proc.exitCode}): ${err}`);
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`no JSON line: ${out} ${err}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    proc,
    facts: JSON.parse(out.slice(0, out.indexOf('\n'))),
    stdout: () => out,
    stderr: () => err,
    stop: async () => {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result;
}

/** What anvil 1.7.1 writes with --config-out (with an explicit --gas-limit, else it writes null there). */
async function anvilConfigOut(): Promise<Record<string, any>> {
  const file = join(DIR, 'anvil.json');
  const port = await freePort();
  const child = spawn(anvilBinary(), ['--port', String(port), '--silent', '--gas-limit', '30000000', '--config-out', file], { stdio: 'ignore' });
  try {
    const deadline = Date.now() + 15_000;
    while (!existsSync(file)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error('anvil wrote no config');
      await new Promise((r) => setTimeout(r, 30));
    }
    await new Promise((r) => setTimeout(r, 100));
    return JSON.parse(readFileSync(file, 'utf8'));
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }
}

const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

describe('--config-out and --json', () => {
  after(() => rmSync(DIR, { recursive: true, force: true }));

  test("--config-out writes anvil's fields with anvil's value types, and the values of this chain", async () => {
    const file = join(DIR, 'node.json');
    const node = await startCli(['--config-out', file, '--accounts', '3', '--gas-price', '2000000000', '--base-fee', '500']);
    try {
      const ours = JSON.parse(readFileSync(file, 'utf8'));
      const theirs = await anvilConfigOut();
      for (const [k, v] of Object.entries(theirs)) assert.equal(typeOf(ours[k]), typeOf(v), k);
      assert.deepEqual(Object.keys(ours.wallet).sort(), Object.keys(theirs.wallet).sort());
      // The same mnemonic gives the same accounts and keys, written alike.
      assert.deepEqual(ours.available_accounts, theirs.available_accounts.slice(0, 3));
      assert.deepEqual(ours.private_keys, theirs.private_keys.slice(0, 3));
      assert.deepEqual(ours.wallet, theirs.wallet);

      assert.deepEqual(ours.available_accounts, ADDRS.map((a) => a.toLowerCase()));
      assert.deepEqual(ours.private_keys, [...KEYS]);
      assert.equal(ours.base_fee, '500');
      assert.equal(ours.gas_price, '2000000000');
      assert.equal(ours.gas_limit, '30000000');
      const genesis = await rpc(node.url, 'eth_getBlockByNumber', ['0x0', false]);
      assert.equal(ours.genesis_timestamp, String(BigInt(genesis.timestamp)));
      assert.equal(ours.chain_id, 984);
      assert.equal(ours.rpc_url, node.url);
      assert.equal(ours.ws_url, node.url.replace('http://', 'ws://'));
    } finally {
      await node.stop();
    }
  });

  test('--json prints the object as the one stdout line, no banner; the request log goes to stderr', async () => {
    const node = await startJson(['--config-out', join(DIR, 'both.json')]);
    try {
      const f = node.facts;
      assert.deepEqual(JSON.parse(readFileSync(join(DIR, 'both.json'), 'utf8')), f);
      assert.equal(f.available_accounts.length, 10);
      // A launcher learns the port (--port 0) from the line and connects.
      assert.deepEqual(
        (await rpc(f.rpc_url, 'eth_accounts')).map((a: string) => a.toLowerCase()),
        f.available_accounts,
      );
      await rpc(f.rpc_url, 'eth_sendTransaction', [{ from: f.available_accounts[0], to: f.available_accounts[1], value: '0x1' }]);
      const deadline = Date.now() + 10_000;
      while (!/eth_sendTransaction/.test(node.stderr()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.match(node.stderr(), /eth_sendTransaction/);
      assert.match(node.stderr(), /block #1/);
      assert.equal(node.stdout().split('\n').filter((l) => l !== '').length, 1, node.stdout());
      assert.doesNotMatch(node.stdout(), /Available Accounts|Listening on/);
    } finally {
      await node.stop();
    }
  });

  test("a fork writes anvil's fork fields: redacted endpoint, block number and hash, chain ids", async () => {
    const upstream = await startCli([]);
    try {
      await rpc(upstream.url, 'anvil_mine', ['0x3']);
      const node = await startJson(['--fork-url', `${upstream.url}/some/path?key=secret`, '--chain-id', '77']);
      try {
        const f = node.facts;
        const head = await rpc(upstream.url, 'eth_getBlockByNumber', ['latest', false]);
        assert.equal(f.endpoint, upstream.url + '/');
        assert.doesNotMatch(JSON.stringify(f), /secret/);
        assert.equal(f.block_number, 3);
        assert.equal(f.block_hash, head.hash);
        assert.equal(f.chain_id, 77);
        assert.equal(f.source_chain_id, 984);
        assert.equal(f.base_fee, String(BigInt(head.baseFeePerGas)));
        assert.equal(f.genesis_timestamp, undefined);
      } finally {
        await node.stop();
      }
    } finally {
      await upstream.stop();
    }
  });

  test('a shared node with signing locked gives out no keys; an unwritable --config-out exits 1 naming it', async () => {
    const node = await startJson(['--public', '--host', '127.0.0.1']);
    try {
      assert.deepEqual(node.facts.private_keys, []);
      assert.deepEqual(node.facts.wallet, {});
      assert.equal(node.facts.available_accounts.length, 10);
    } finally {
      await node.stop();
    }
    const r = spawnSync(process.execPath, [BIN, 'dev', '--port', '0', '--config-out', join(DIR, 'missing', 'dir', 'c.json')], { encoding: 'utf8', timeout: 15_000 });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /cannot write --config-out .*missing\/dir\/c\.json/);
  });
});
