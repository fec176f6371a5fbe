import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { describe, test } from 'node:test';
import { WebSocket } from 'ws';
import { BIN, startCli } from '../support/cli.js';

function run(args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 10_000 });
}

describe('node-rpc dev (child process)', () => {
  test('--help lists every flag with its default', () => {
    const r = run(['dev', '--help']);
    assert.equal(r.status, 0, r.stderr);
    for (const flag of ['--port', '--chain-id', '--balance', '--gas-limit', '--gas-price', '--hardfork', '--block-time', '--fork-url', '--max-logs', '--rpc-gas-cap', '--call-timeout']) assert.ok(r.stdout.includes(flag), flag);
    assert.match(r.stdout, /--gas-limit <gas>\s+block gas limit \(default: 30000000\)/);
  });

  test('bad flag values exit non-zero with one line naming the flag', () => {
    const cases: Array<[string[], RegExp]> = [
      [['--port', 'abc'], /--port/],
      [['--port', '70000'], /--port/],
      [['--chain-id', '-1'], /--chain-id/],
      [['--hardfork', 'dao'], /--hardfork.*unknown hardfork 'dao': known are chainstart \(frontier\), homestead, .*, paris \(merge\), shanghai, cancun, prague, osaka, bpo1, bpo2 and latest/],
      [['--hardfork', 'bpo3'], /--hardfork.*unknown hardfork 'bpo3'/],
      [['--balance', 'lots'], /--balance/],
      [['--mnemonic', 'not a real mnemonic'], /--mnemonic/],
      [['--gas-limit', '10'], /--gas-limit/],
      [['--derivation-path', 'x/1'], /--derivation-path/],
      [['--call-timeout', 'soon'], /--call-timeout/],
      [['--rpc-gas-cap', '100'], /--rpc-gas-cap/],
    ];
    for (const [args, pattern] of cases) {
      const r = run(['dev', ...args]);
      assert.notEqual(r.status, 0, args.join(' '));
      assert.match(r.stderr, pattern, args.join(' '));
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line for ${args.join(' ')}: ${r.stderr}`);
    }
  });

  test('starts, prints the banner, serves HTTP and WS on one port, logs requests and blocks, exits 0 on SIGTERM', async () => {
    const node = await startCli(['--chain-id', '985', '--accounts', '2', '--balance', '5']);
    const { url } = node;
    const out = () => node.output();
    assert.match(out(), /0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 \(5 ETH\)/);
    assert.match(out(), /0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80/);
    assert.match(out(), /Chain ID:\s+985/);
    assert.match(out(), /test test test test test test test test test test test junk/);
    assert.equal(await node.rpc('eth_chainId'), '0x3d9');
    const ws = new WebSocket(url.replace('http', 'ws'));
    await once(ws, 'open');
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'net_version', params: [] }));
    const [msg] = await once(ws, 'message');
    assert.deepEqual(JSON.parse(String(msg)), { jsonrpc: '2.0', id: 7, result: '985' });
    const hash = await node.rpc('eth_sendTransaction', [{ from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: '0x1' }]);
    await new Promise((r) => setTimeout(r, 250));
    assert.match(out(), /eth_chainId/);
    assert.ok(out().includes(`tx ${hash}`), 'transaction line');
    assert.match(out(), /block #1 /);
    assert.equal(await node.stop(), 0);
    assert.equal(ws.readyState === WebSocket.CLOSED || ws.readyState === WebSocket.CLOSING, true);
  });

  test('--hardfork takes the names as anvil and Hardhat spell them, in any case; latest is the default, mainnet\'s current fork', async () => {
    for (const [name, expected] of [['Prague', 'Prague'], ['OSAKA', 'Osaka'], ['bpo1', 'Bpo1'], ['latest', 'Bpo2'], ['London', 'London'], ['merge', 'Paris']]) {
      const node = await startCli(['--hardfork', name]);
      try {
        assert.equal((await node.rpc('anvil_nodeInfo')).hardFork, expected, name);
        assert.match(node.output(), new RegExp(`Hardfork: +${expected.toLowerCase()}`));
      } finally {
        await node.stop();
      }
    }
  });

  test('--silent prints nothing on a clean run', async () => {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const child = spawn(process.execPath, [BIN, 'dev', '--port', String(port), '--silent'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const deadline = Date.now() + 10_000;
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}' }).then((r) => r.ok, () => false);
      if (ok) break;
      assert.ok(Date.now() < deadline, 'node did not start');
      await new Promise((r) => setTimeout(r, 25));
    }
    child.kill('SIGINT');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
    assert.equal(out, '');
  });
});
