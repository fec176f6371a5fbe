/**
 * The package as a user gets it: `npm pack` of the built tree, installed into an empty project
 * (its runtime dependencies from the npm cache or the registry), imported by name, a chain run
 * through it (provider, a blob transaction through the native KZG library, listen, close), its declarations type-checked, its `node-rpc` command run.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'node-rpc-pack-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });

const APP = `
import { createNode } from 'node-rpc';
const node = await createNode({ chainId: 4242, accounts: 2 });
const p = node.provider;
const hash = await p.request({ method: 'eth_sendTransaction', params: [{ from: node.accounts[0].address, to: node.accounts[1].address, value: '0x5' }] });
const receipt = await p.request({ method: 'eth_getTransactionReceipt', params: [hash] });
// A blob transaction: the native KZG library loads from the installed package.
const blobHash = await p.request({ method: 'eth_sendTransaction', params: [{ from: node.accounts[0].address, to: node.accounts[1].address, blobs: ['0x' + '00'.repeat(131072)] }] });
const blobReceipt = await p.request({ method: 'eth_getTransactionReceipt', params: [blobHash] });
const { url } = await node.listen({ port: 0 });
const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}' });
const overHttp = (await res.json()).result;
let bad;
try { await createNode({ hardfork: 'londun' }); } catch (err) { bad = err.message; }
await node.close();
console.log(JSON.stringify({ status: receipt.status, blobStatus: blobReceipt.status, overHttp, accounts: node.accounts.length, bad }));
`;

const TYPED = `
import { createNode, type Node, type NodeOptions } from 'node-rpc';
const options: NodeOptions = { chainId: 1, fork: { url: 'http://127.0.0.1:1', blockNumber: 5n } };
const node: Node = await createNode(options);
const n: Promise<unknown> = node.provider.request({ method: 'eth_chainId' });
node.provider.on('message', (m) => m.data.subscription.toUpperCase());
const { url, ws }: { url: string; ws: string } = await node.listen({ port: 0, host: '127.0.0.1' });
const key: \`0x\${string}\` = node.accounts[0]!.privateKey;
// @ts-expect-error: an option that does not exist
await createNode({ chainIdd: 1 });
export { n, url, ws, key };
`;

test('npm pack gives a package that installs into an empty project and runs a chain with no build step', () => {
  const packed = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], ROOT)) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const files = packed[0]!.files.map((f) => f.path).sort();
  for (const f of ['bin/node-rpc.js', 'dist/node.cjs', 'dist/load.cjs', 'dist/index.js', 'dist/index.d.ts', 'dist/types.d.ts', 'dist/worker.js', 'dist/explorer/index.html', 'package.json']) assert.ok(files.includes(f), `${f} is packed`);
  assert.ok(!files.some((f) => f.startsWith('dist/src/') || f.startsWith('dist/test/') || f.startsWith('src/')), 'only the bundles are packed');

  const app = join(dir, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', type: 'module', private: true }));
  npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', join(dir, packed[0]!.filename)], app);
  // Only what the bundles leave outside is installed beside them.
  const manifest = JSON.parse(readFileSync(join(app, 'node_modules', 'node-rpc', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  assert.deepEqual(Object.keys(manifest.dependencies).sort(), ['@crate-crypto/node-eth-kzg', 'secp256k1', 'tiny-secp256k1']);
  assert.ok(!readdirSync(join(app, 'node_modules')).includes('@ethereumjs'), 'the engine is in the bundle');

  writeFileSync(join(app, 'main.js'), APP);
  // The installed bundle's code cache goes to a folder of the test's own, not the user's cache.
  const env = { ...process.env, NODE_COMPILE_CACHE: join(dir, 'cache') };
  const out = execFileSync(process.execPath, ['main.js'], { cwd: app, encoding: 'utf8', timeout: 120_000, env });
  const { bad, ...answers } = JSON.parse(out.trim()) as { bad: string };
  assert.deepEqual(answers, { status: '0x1', blobStatus: '0x1', overHttp: '0x1092', accounts: 2 });
  assert.match(bad, /^createNode: invalid option hardfork \(--hardfork\): unknown hardfork 'londun': known are chainstart \(frontier\), homestead, .*, london, .*, bpo2 and latest \(= the default\)$/);

  writeFileSync(join(app, 'typed.ts'), TYPED);
  const tsc = join(ROOT, 'node_modules', '.bin', 'tsc');
  execFileSync(tsc, ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck', '--types', 'node', '--typeRoots', join(ROOT, 'node_modules', '@types'), 'typed.ts'], { cwd: app, encoding: 'utf8' });

  const version = execFileSync(join(app, 'node_modules', '.bin', 'node-rpc'), ['--version'], { cwd: app, encoding: 'utf8', env });
  assert.equal(version.trim(), (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
});
