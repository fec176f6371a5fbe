/**
 * close frees everything: a child process that creates, uses and closes 20 nodes (each with a
 * transaction, a filter, a subscription, interval mining, call workers and an HTTP server that
 * answered a request) exits by itself, and its memory after 20 nodes is about what it was after 5.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const LIB = fileURLToPath(new URL('../../index.js', import.meta.url));

const SCRIPT = `
import { createNode } from ${JSON.stringify(LIB)};
// Measured after a pause: what the last node closed left pending (a server's last socket, a timer
// turn) has run by then.
const usage = async () => { await new Promise((r) => setTimeout(r, 300)); globalThis.gc(); globalThis.gc(); const m = process.memoryUsage(); return { rss: m.rss, heap: m.heapUsed, buffers: m.arrayBuffers }; };
async function one(i) {
  const node = await createNode({ chainId: 1000 + i, blockTime: 0.05, callWorkers: 1 });
  const p = node.provider;
  const from = node.accounts[0].address;
  await p.request({ method: 'eth_sendTransaction', params: [{ from, to: node.accounts[1].address, value: '0x1' }] });
  await p.request({ method: 'eth_newBlockFilter' });
  await p.request({ method: 'eth_subscribe', params: ['newHeads'] });
  // Calls at once: the call workers start.
  await Promise.all(Array.from({ length: 6 }, () => p.request({ method: 'eth_call', params: [{ to: from, data: '0x' }, 'latest'] })));
  const { url } = await node.listen({ port: 0 });
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}' });
  await res.text();
  await node.close();
}
const marks = {};
for (let i = 1; i <= 20; i++) {
  await one(i);
  if (i === 5 || i === 20) marks['after' + i] = await usage();
}
process.stdout.write(JSON.stringify(marks));
`;

test('20 nodes created and closed: the process exits by itself, its RSS does not grow with the nodes closed', async () => {
  const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  // A freeze bound, not a timing goal: a process something keeps alive never exits.
  const killer = setTimeout(() => child.kill('SIGKILL'), 240_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => child.once('exit', (c, s) => r([c, s])));
  clearTimeout(killer);
  assert.equal(signal, null, `the process did not exit by itself (killed); stderr: ${err}`);
  assert.equal(code, 0, err);
  type Usage = { rss: number; heap: number; buffers: number };
  const { after5, after20 } = JSON.parse(out) as { after5: Usage; after20: Usage };
  const mb = (k: keyof Usage) => (after20[k] - after5[k]) / 2 ** 20;
  const say = (k: keyof Usage) => `${k} ${(after5[k] / 2 ** 20).toFixed(1)} -> ${(after20[k] / 2 ** 20).toFixed(1)} MB`;
  // A node left open holds about 3.5 MB of heap and 34 MB of array buffers (its trie store) and
  // adds 4 to 6 MB of RSS: 15 of them would be 50 MB of heap, 500 MB of buffers, 60 MB of RSS
  // and more. Closed nodes measured: heap +1 MB, buffers flat, RSS +25 to 30 MB (the allocator's
  // pages, flat from about 15 nodes on).
  assert.ok(mb('heap') < 10, say('heap'));
  assert.ok(mb('buffers') < 30, say('buffers'));
  assert.ok(mb('rss') < 60, say('rss'));
});
