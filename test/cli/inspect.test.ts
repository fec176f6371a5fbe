import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Interface } from 'ethers';
import { freePort, startAnvil, type Anvil } from '../support/anvil.js';
import { ADDRS, artifact, startTestNode, type TestNode } from '../support/node.js';

const BIN = fileURLToPath(new URL('../../../bin/node-rpc.js', import.meta.url));
const ARTIFACTS = fileURLToPath(new URL('../../../fixtures/artifacts', import.meta.url));
const ESC = /\u001b\[/;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the CLI as a child process (asynchronously: the node under test lives in this process). */
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 20_000, env: { ...process.env, FORCE_COLOR: '1', ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('inspection commands against a live node (child processes)', () => {
  let n: TestNode;
  let tryFail: string;
  let callStore: string;
  let calleeAddr: string;
  let callerAddr: string;

  before(async () => {
    n = await startTestNode();
    const deploy = async (name: string) => (await n.rpc('eth_getTransactionReceipt', [await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], data: artifact(name).bytecode }])])).contractAddress;
    calleeAddr = await deploy('Callee');
    callerAddr = await deploy('Caller');
    const caller = new Interface(artifact('Caller').abi);
    tryFail = await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: callerAddr, data: caller.encodeFunctionData('tryFail', [calleeAddr]) }]);
    callStore = await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: callerAddr, data: caller.encodeFunctionData('callStore', [calleeAddr, 5]), value: '0x0' }]);
  });
  after(async () => {
    await n.close();
  });

  test('trace: call tree with depth, type, from → to, decoded selectors, revert reason and logs; no colour when piped', async () => {
    const [r, nested, bare, json] = await Promise.all([
      cli(['trace', tryFail, '--rpc', n.url, '--abi', ARTIFACTS]),
      cli(['trace', callStore, '--rpc', n.url, '--abi', ARTIFACTS + '/Caller.json', '--abi', ARTIFACTS + '/Callee.json']),
      cli(['trace', callStore, '--rpc', n.url]),
      cli(['trace', tryFail, '--rpc', n.url, '--json']),
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, ESC, 'no escape codes in piped output, even with FORCE_COLOR');
    const lines = r.stdout.trimEnd().split('\n');
    assert.equal(lines[0], `Transaction ${tryFail}`);
    const receipt = await n.rpc('eth_getTransactionReceipt', [tryFail]);
    assert.equal(lines[1], `  block #${BigInt(receipt.blockNumber)}  index 0  success  gas used ${BigInt(receipt.gasUsed)}`);
    // Contract names and decoded arguments from the artifacts; the callee's address checksummed and shortened.
    const short = (a: string) => new RegExp(`${a.slice(0, 6)}…${a.slice(-4)}`, 'i').source;
    assert.match(lines[3], new RegExp(`^0  CALL  ${ADDRS[0].toLowerCase()} → Caller ${callerAddr}  tryFail\\(${short(calleeAddr)}\\)  gas used ${BigInt(receipt.gasUsed)}$`, 'i'));
    assert.match(lines[4], new RegExp(`^├─ 1  STATICCALL  Caller ${callerAddr} → Callee ${calleeAddr}  fail\\(\\)  gas used \\d+  ✗ execution reverted: callee failed$`));
    assert.match(lines[5], new RegExp(`^└─ log  Caught\\("callee failed"\\)  Caller ${callerAddr}  topics 1  data 96 bytes$`));
    assert.equal(lines.length, 6);

    assert.equal(nested.code, 0, nested.stderr);
    const tree = nested.stdout.trimEnd().split('\n').slice(3);
    assert.match(tree[0], /^0  CALL  .* → Caller 0x[0-9a-f]{40}  callStore\(0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}, 5\)/);
    assert.match(tree[1], /^└─ 1  CALL  Caller .* → Callee .* store\(5\)  gas used \d+$/);
    assert.match(tree[2], /^   └─ log  Stored\(5\)  Callee /);

    assert.match(bare.stdout, /0x462b537c/, 'unknown selectors shown as such');

    assert.deepEqual(JSON.parse(json.stdout), await n.rpc('debug_traceTransaction', [tryFail, { tracer: 'callTracer', tracerConfig: { withLog: true } }]));
  });

  test('txpool: pending and queued tables, and --json', async () => {
    await n.node.miner.setAutomine(false);
    try {
      const pending = await n.rpc('eth_sendTransaction', [{ from: ADDRS[1], to: ADDRS[2], value: '0xde0b6b3a7640000' }]);
      const nonce = BigInt(await n.rpc('eth_getTransactionCount', [ADDRS[1], 'latest']));
      const queued = await n.rpc('eth_sendTransaction', [{ from: ADDRS[1], data: '0x6000', nonce: '0x' + (nonce + 5n).toString(16) }]);
      const r = await cli(['txpool', '--rpc', n.url]);
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stdout, ESC);
      const lines = r.stdout.trimEnd().split('\n');
      assert.equal(lines[0], 'Pending (1)');
      assert.match(lines[1], /^ {2}FROM +NONCE +TO +VALUE +GAS +PRICE +HASH$/);
      const [a1, a2] = [ADDRS[1].toLowerCase(), ADDRS[2].toLowerCase()];
      assert.match(lines[2], new RegExp(`^  ${a1} +${nonce} +${a2} +1 ETH +21000 +[\\d.]+ gwei \\(tip 1 gwei\\) +${pending}$`));
      assert.equal(lines[3], 'Queued (1)');
      assert.match(lines[5], new RegExp(`^  ${a1} +${nonce + 5n} +contract creation +0 ETH .* ${queued}$`));

      const json = await cli(['txpool', '--rpc', n.url, '--json']);
      assert.deepEqual(JSON.parse(json.stdout), await n.rpc('txpool_content'));
    } finally {
      await n.node.miner.mineNow();
      await n.node.miner.setAutomine(true);
    }
    const empty = await cli(['txpool', '--rpc', n.url]);
    assert.match(empty.stdout, /^Pending \(0\)\n {2}none\nQueued \(1\)/);
  });

  test('block: header summary and transactions, by number, tag or hash', async () => {
    const receipt = await n.rpc('eth_getTransactionReceipt', [callStore]);
    const number = BigInt(receipt.blockNumber);
    const block = await n.rpc('eth_getBlockByNumber', [receipt.blockNumber, false]);
    const [r, byHash, byHex, genesis, creation, json] = await Promise.all([
      cli(['block', String(number), '--rpc', n.url]),
      cli(['block', block.hash, '--rpc', n.url]),
      cli(['block', receipt.blockNumber, '--rpc', n.url]),
      cli(['block', 'earliest', '--rpc', n.url]),
      cli(['block', '1', '--rpc', n.url]),
      cli(['block', '--rpc', n.url, '--json']),
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, ESC);
    const lines = r.stdout.trimEnd().split('\n');
    assert.equal(lines[0], `Block #${number}  ${block.hash}`);
    assert.match(r.stdout, new RegExp(`gas used +${BigInt(block.gasUsed)} / 30000000 \\(`));
    assert.match(r.stdout, /base fee +[\d.]+ gwei/);
    assert.match(r.stdout, /transactions +1\n/);
    assert.match(lines[lines.length - 1], new RegExp(`^  0  ${callStore}  ${ADDRS[0].toLowerCase()}  ${callerAddr}  0 ETH  ${BigInt(receipt.gasUsed)} +success$`));
    assert.equal(byHash.stdout, r.stdout);
    assert.equal(byHex.stdout, r.stdout);
    assert.match(genesis.stdout, /^Block #0 /);
    assert.match(genesis.stdout, /transactions +0\n?$/);
    assert.match(creation.stdout, new RegExp(`create ${calleeAddr}`));
    assert.deepEqual(JSON.parse(json.stdout), await n.rpc('eth_getBlockByNumber', ['latest', true]));
    // The pending block: the next number, not sealed (no hash, no miner), empty under automine.
    const pending = await cli(['block', 'pending', '--rpc', n.url]);
    assert.equal(pending.code, 0, pending.stderr);
    assert.match(pending.stdout, new RegExp(`^Block #${BigInt(await n.rpc('eth_blockNumber')) + 1n}  pending\n`));
    assert.match(pending.stdout, /miner +not sealed\n/);
    assert.match(pending.stdout, /transactions +0\n?$/);
  });

  test('failures print one error line and exit 1', async () => {
    const port = await freePort();
    const [missing, badRef, badHash, unknown, down] = await Promise.all([
      cli(['block', '999', '--rpc', n.url]),
      cli(['block', 'yesterday', '--rpc', n.url]),
      cli(['trace', '0x1234', '--rpc', n.url]),
      cli(['trace', '0x' + '11'.repeat(32), '--rpc', n.url]),
      cli(['txpool', '--rpc', `http://127.0.0.1:${port}`]),
    ]);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'error: block 999 not found\n');
    assert.equal(badRef.code, 1);
    assert.match(badRef.stderr, /^error: not a block number, tag or hash: yesterday/);
    assert.equal(badHash.code, 1);
    assert.equal(badHash.stderr, 'error: not a transaction hash: 0x1234\n');
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, 'error: debug_traceTransaction: transaction not found\n');
    assert.equal(down.code, 1);
    assert.match(down.stderr, new RegExp(`^error: cannot reach http://127.0.0.1:${port}: ECONNREFUSED\\n$`));
  });

  test('an endpoint that does not speak JSON-RPC, or a URL that is not http(s), is one clear error line', async () => {
    // A web server that is not a node: a page for every request, 404 at one path.
    const web = http.createServer((req, res) => {
      if (req.url === '/limited') {
        // A node over its request limit: 429 with the JSON-RPC error saying why.
        res.writeHead(429, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32005, message: 'request rate limit exceeded: 100 requests per second per IP' } }));
        return;
      }
      res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'text/html' });
      res.end('<html>hello</html>');
    });
    web.listen(0, '127.0.0.1');
    await once(web, 'listening');
    const url = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
    try {
      const [page, missing, ftp, limited] = await Promise.all([
        cli(['txpool', '--rpc', url]),
        cli(['block', 'latest', '--rpc', `${url}/missing`]),
        cli(['txpool', '--rpc', 'ftp://127.0.0.1']),
        cli(['txpool', '--rpc', `${url}/limited`]),
      ]);
      assert.equal(limited.code, 1);
      assert.equal(limited.stderr, `error: ${url}/limited answered txpool_content with HTTP 429 Too Many Requests: request rate limit exceeded: 100 requests per second per IP\n`);
      assert.equal(page.code, 1);
      assert.equal(page.stderr, `error: ${url} answered txpool_content with HTTP 200 and no JSON-RPC response\n`);
      assert.equal(missing.code, 1);
      assert.equal(missing.stderr, `error: ${url}/missing answered eth_getBlockByNumber with HTTP 404 and no JSON-RPC response\n`);
      assert.equal(ftp.code, 1);
      assert.equal(ftp.stderr, 'error: cannot reach ftp://127.0.0.1: not an http:// or https:// URL\n');
    } finally {
      web.close();
    }
  });
});

describe('inspection commands against anvil: plain JSON-RPC', () => {
  let anvil: Anvil;
  let url: string;

  before(async () => {
    anvil = await startAnvil();
    url = anvil.url;
  });
  after(async () => {
    await anvil?.close();
  });

  test('trace, block and txpool work the same against another node', async () => {
    const post = async (method: string, params: unknown[]) =>
      ((await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json()) as { result: any }).result;
    const hash = await post('eth_sendTransaction', [{ from: ADDRS[0], data: artifact('Callee').bytecode }]);
    const [trace, block, pool] = await Promise.all([cli(['trace', hash, '--rpc', url]), cli(['block', '--rpc', url]), cli(['txpool', '--rpc', url])]);
    assert.equal(trace.code, 0, trace.stderr);
    assert.match(trace.stdout, /^0  CREATE  0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266 → 0x5fbdb2315678afecb367f032d93f642f64180aa3  created  gas used \d+$/m);
    assert.equal(block.code, 0, block.stderr);
    assert.match(block.stdout, /^Block #1 /);
    assert.match(block.stdout, new RegExp(`create 0x5fbdb2315678afecb367f032d93f642f64180aa3`));
    assert.equal(pool.code, 0, pool.stderr);
    assert.match(pool.stdout, /^Pending \(0\)/);
  });
});
