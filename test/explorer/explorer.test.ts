/**
 * The explorer in a real headless Chromium against `node-rpc dev --artifacts fixtures/artifacts`:
 * live transactions, a decoded call and revert, opcode paging, controls, the address and pool
 * pages, and the same page pointed at anvil.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { ContractFactory, JsonRpcProvider, Wallet, type Contract } from 'ethers';
import type { Browser, Page } from 'playwright-core';
import { startAnvil, type Anvil } from '../support/anvil.js';
import { startCli, type CliNode } from '../support/cli.js';
import { artifact, KEYS } from '../support/node.js';
import { launch, ready, screenshot } from './browser.js';
import { blobOf, commitmentOf, versionedHashOf } from '../support/kzg.js';

const FIXTURE_ARTIFACTS = fileURLToPath(new URL('../../../fixtures/artifacts', import.meta.url));
/** Dev account 2: only receives in these tests. */
const ALICE = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

describe('explorer in a browser', () => {
  let node: CliNode;
  let browser: Browser;
  let page: Page;
  let token: Contract;
  let wallet: Wallet;

  before(async () => {
    node = await startCli(['--artifacts', FIXTURE_ARTIFACTS]);
    const provider = new JsonRpcProvider(node.url, undefined, { staticNetwork: true, cacheTimeout: -1 });
    wallet = new Wallet(KEYS[0], provider);
    const t = artifact('Token');
    token = (await new ContractFactory(t.abi, t.bytecode, wallet).deploy('Token', 'TKN', 10n ** 24n)) as Contract;
    await token.waitForDeployment();
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  });

  after(async () => {
    await browser?.close();
    await node?.stop();
  });

  it('serves the page to browsers and JSON to everyone else', async () => {
    const html = await fetch(node.url, { headers: { accept: 'text/html' } });
    assert.equal(html.status, 200);
    assert.match(html.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await html.text(), /node-rpc explorer/);
    assert.equal(((await (await fetch(node.url)).json()) as { status: string }).status, 'ok');
    // /health answers JSON to browsers too, and names the chain it serves.
    const health = (await (await fetch(`${node.url}/health`, { headers: { accept: 'text/html' } })).json()) as { status: string; chainId: number };
    assert.equal(health.status, 'ok');
    assert.equal(health.chainId, 984);
    const script = await fetch(`${node.url}/explorer/app.js`);
    assert.match(script.headers.get('content-type') ?? '', /javascript/);
    const artifacts = (await (await fetch(`${node.url}/explorer/artifacts.json`)).json()) as Array<{ name: string }>;
    assert.ok(artifacts.some((a) => a.name === 'Token'));
  });

  it('shows the chain and a transaction sent by the test as it is mined', async () => {
    await page.goto(node.url + '/');
    await ready(page);
    assert.equal(await page.textContent('.stat:nth-child(1) .value'), '984');
    assert.match((await page.textContent('#mining')) ?? '', /automine/);
    const tx = await token.transfer(ALICE, 10n ** 18n);
    await page.waitForSelector(`#txs a[href="#/tx/${tx.hash}"]`, { timeout: 10_000 });
    await screenshot(page, 'home');
    await page.click(`#txs a[href="#/tx/${tx.hash}"]`);
    await ready(page);
    assert.equal(await page.textContent('#tx-status'), 'success');
    assert.match((await page.textContent('#tx-call')) ?? '', /^Token\.transfer\(0x3C44…93BC, 1e18\)$/);
    await page.waitForSelector('.log .mono:has-text("Transfer(")');
    await screenshot(page, 'transaction');
  });

  it('shows a blob transaction: its blob gas, the burned blob fee and each versioned hash', async () => {
    // Dev account 3 sends a blob through eth_sendTransaction: the node builds the sidecar.
    const from = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
    const res = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendTransaction', params: [{ from, to: ALICE, blobs: [blobOf(51)] }] }) });
    const hash = ((await res.json()) as { result: string }).result;
    await page.goto(`${node.url}/#/tx/${hash}`);
    await ready(page);
    await page.waitForSelector('#tx-blobs');
    const text = (await page.textContent('#tx-blobs')) ?? '';
    assert.match(text, /Blobs \(1\)/);
    assert.match(text, /blob gas131072 at /);
    assert.ok(text.includes(versionedHashOf(commitmentOf(blobOf(51)))), text);
  });

  it('decodes a reverting call, its call tree, and pages through opcode steps', async () => {
    const bob = new Wallet(KEYS[1], wallet.provider);
    const tx = await (token.connect(bob) as Contract).transfer(ALICE, 5n * 10n ** 18n, { gasLimit: 100_000 });
    await tx.wait().catch(() => undefined);
    await page.goto(`${node.url}/#/tx/${tx.hash}`);
    await ready(page);
    assert.equal(await page.textContent('#tx-status'), 'reverted');
    await page.waitForSelector('#revert-reason:has-text("InsufficientBalance(")');
    assert.match((await page.textContent('#revert-reason')) ?? '', /^reverted: execution reverted: InsufficientBalance\(0x7099…79C8, 0, 5e18\)$/);
    assert.match((await page.textContent('#call-tree')) ?? '', /CALL/);
    await page.waitForSelector('#call-tree .name:has-text("Token")');
    await page.click('#load-steps');
    await page.waitForSelector('#steps-range');
    const first = (await page.textContent('#steps-range')) ?? '';
    const m = /^steps 1–50 of (\d+)$/.exec(first);
    assert.ok(m, first);
    assert.ok(Number(m[1]) > 50);
    await page.click('#steps-next');
    assert.equal(await page.textContent('#steps-range'), `steps 51–100 of ${m[1]}`);
    await screenshot(page, 'revert');
    await page.click('#steps tbody tr:nth-child(3)');
    assert.match((await page.textContent('#step-detail')) ?? '', /stack \(\d+, top first\)/);
  });

  it('shows console.log lines and a nested call tree as gas bars', async () => {
    const deploy = async (name: string) => {
      const a = artifact(name);
      const c = (await new ContractFactory(a.abi, a.bytecode, wallet).deploy()) as Contract;
      await c.waitForDeployment();
      return c;
    };
    const [consoleUser, callee, caller] = [await deploy('ConsoleUser'), await deploy('Callee'), await deploy('Caller')];
    const logged = await consoleUser.hello(42);
    await logged.wait();
    await page.goto(`${node.url}/#/tx/${logged.hash}`);
    await ready(page);
    assert.equal(await page.textContent('#console-lines'), `hello 42\n${wallet.address}\ntrue\ntwo strings second`);
    const nested = await caller.callStore(await callee.getAddress(), 5);
    await nested.wait();
    await page.goto(`${node.url}/#/tx/${nested.hash}`);
    await ready(page);
    await page.waitForSelector('#call-tree .name:has-text("Callee")');
    assert.match((await page.textContent('#call-tree')) ?? '', /callStore\(0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}, 5\).*store\(5\)/s);
    assert.equal(await page.locator('.flame-row').count(), 2, 'one row per depth');
    await page.waitForSelector('.flame-bar:has-text("Callee")');
    await screenshot(page, 'call-tree');
  });

  it('mines 10 blocks from the controls and the head follows', async () => {
    await page.goto(node.url + '/#/');
    await ready(page);
    const before = BigInt(await node.rpc('eth_blockNumber'));
    await page.fill('#mine-count', '10');
    await page.click('#mine');
    await page.waitForSelector(`#head:has-text("#${before + 10n}")`, { timeout: 10_000 });
    assert.equal(BigInt(await node.rpc('eth_blockNumber')), before + 10n);
    await screenshot(page, 'controls');
  });

  it('shows an address page with the contract name, balance and touched slots', async () => {
    const address = await token.getAddress();
    await page.goto(`${node.url}/#/address/${address}`);
    await ready(page);
    assert.match((await page.textContent('h1')) ?? '', /^Token /);
    assert.match((await page.textContent('main')) ?? '', /deployed by/);
    assert.match((await page.textContent('main')) ?? '', /Transactions \([1-9]/);
    assert.match((await page.textContent('main')) ?? '', /Storage slots its transactions touched \([1-9]/);
    await page.goto(`${node.url}/#/address/${ALICE}`);
    await ready(page);
    assert.match((await page.textContent('#balance')) ?? '', /^10000 ETH$/);
    await screenshot(page, 'address');
  });

  it('lists the pool with a nonce gap and drops a transaction', async () => {
    await node.rpc('evm_setAutomine', [false]);
    try {
      const nonce = await wallet.getNonce('pending');
      await wallet.sendTransaction({ to: ALICE, value: 1n, nonce });
      const gapped = await wallet.sendTransaction({ to: ALICE, value: 2n, nonce: nonce + 2 });
      await page.goto(node.url + '/#/pool');
      await ready(page);
      assert.match((await page.textContent('#pool')) ?? '', /nonce gap: .* missing nonce \d+/);
      await screenshot(page, 'pool');
      await page.click(`#pool tr:has(a[href="#/tx/${gapped.hash}"]) button.drop`);
      await page.waitForFunction((h) => !document.querySelector(`#pool a[href="#/tx/${h}"]`), gapped.hash);
      assert.equal(await node.rpc('eth_getTransactionByHash', [gapped.hash]), null);
    } finally {
      await node.rpc('anvil_dropAllTransactions');
      await node.rpc('evm_setAutomine', [true]);
    }
  });

  it('searches by block number', async () => {
    await page.goto(node.url + '/');
    await ready(page);
    await page.fill('#search input', '1');
    await page.press('#search input', 'Enter');
    await page.waitForSelector('h1:has-text("Block #1")');
  });

  it('is one small script, and --no-explorer turns it off', async () => {
    const script = new Uint8Array(await (await fetch(`${node.url}/explorer/app.js`)).arrayBuffer());
    const gzipped = gzipSync(script).length;
    assert.ok(gzipped <= 150 * 1024, `explorer bundle is ${gzipped} bytes gzipped`);
    const off = await startCli(['--no-explorer']);
    try {
      const res = await fetch(off.url, { headers: { accept: 'text/html' } });
      assert.deepEqual(await res.json(), { status: 'ok' });
      assert.doesNotMatch(off.output(), /Explorer:/);
    } finally {
      await off.stop();
    }
  });

  describe('pointed at anvil', () => {
    let anvil: Anvil;
    before(async () => {
      anvil = await startAnvil();
    });
    after(async () => anvil?.close());

    it('shows anvil\'s chain and mines on it', async () => {
      const ws = anvil.url.replace('http://', 'ws://');
      await page.goto(`${node.url}/?rpc=${encodeURIComponent(ws)}#/`);
      await ready(page);
      assert.equal(await page.textContent('#connection'), ws);
      assert.equal(await page.textContent('#head'), '#0');
      await page.fill('#mine-count', '10');
      await page.click('#mine');
      await page.waitForSelector('#control-status:has-text("mine: ")', { timeout: 10_000 });
      assert.equal(await page.textContent('#control-status'), 'mine: done');
      await page.waitForSelector('#head:has-text("#10")', { timeout: 10_000 });
      assert.equal(BigInt(await anvil.rpc('eth_blockNumber')), 10n);
      await screenshot(page, 'anvil');
    });
  });
});
