/**
 * A caught revert (Teller.tryServe: Bank.withdraw reverts inside try/catch, the transaction
 * succeeds) keeps its own Solidity stack: in the sourceTracer's result, under `node-rpc trace`'s
 * tree, and on the explorer's transaction page (in Chromium). A revert passed on is not "caught".
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import type { Browser } from 'playwright-core';
import { BIN, startCli, stripAnsi, type CliNode } from '../support/cli.js';
import { KEYS } from '../support/node.js';
import { LAYOUTS } from '../support/sourcemaps.js';
import { deployVault, vaultLine, type Vault } from '../support/vault.js';
import { launch, ready, screenshot } from '../explorer/browser.js';

function trace(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'trace', ...args], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, NO_COLOR: '1' } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout: stripAnsi(stdout), stderr }),
    );
  });
}

async function rpc(url: string, method: string, params: unknown[]): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result;
}

for (const layout of ['foundry-noopt', 'hardhat-opt']) {
  describe(`caught reverts (${layout})`, () => {
    let node: CliNode;
    let v: Vault;
    let caughtHash: string;
    let revertHash: string;
    let browser: Browser | undefined;
    const require = vaultLine('require(have >= amount');
    const tryLine = vaultLine('try bank.withdraw(amount)');
    before(async () => {
      node = await startCli(['--artifacts', LAYOUTS[layout]!]);
      const signer = new NonceManager(new Wallet(KEYS[0], new JsonRpcProvider(node.url, undefined, { staticNetwork: true })));
      v = await deployVault(layout, signer);
      const send = async (data: string) => (await signer.sendTransaction({ to: v.teller, data, gasLimit: 300_000 })).hash;
      caughtHash = await send(v.iface.teller.encodeFunctionData('tryServe', [7]));
      revertHash = await send(v.iface.teller.encodeFunctionData('serve', [7]));
    });
    after(async () => {
      await browser?.close();
      await node?.stop();
    });

    it('sourceTracer: the caught frame carries its stack, from the require to the try', async () => {
      const t = await rpc(node.url, 'debug_traceTransaction', [caughtHash, { tracer: 'sourceTracer' }]);
      assert.equal(t.error, undefined);
      assert.equal(t.revert, undefined);
      const inner = t.calls[0];
      assert.equal(inner.error, 'execution reverted');
      assert.match(inner.caught.message, /^execution reverted: not enough \(at Bank.withdraw src\/Vault.sol:\d+:\d+, Teller.tryServe src\/Vault.sol:\d+:\d+\)$/);
      assert.deepEqual(
        inner.caught.stack.map((p: any) => [p.contract, p.function, p.line]),
        [
          ['Bank', 'withdraw', require],
          ['Teller', 'tryServe', tryLine],
        ],
      );
      assert.ok(inner.caught.snippet.some((s: any) => s.line === require));
      // A revert passed on is the transaction's revert, not a caught one.
      const r = await rpc(node.url, 'debug_traceTransaction', [revertHash, { tracer: 'sourceTracer' }]);
      assert.equal(r.calls[0].caught, undefined);
      assert.equal(r.revert.stack.length, 2);
    });

    it('node-rpc trace shows the caught failure with its stack and source under the tree', async () => {
      const r = await trace([caughtHash, '--rpc', node.url, '--abi', LAYOUTS[layout]!]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`\\ncaught: execution reverted: not enough \\(at Bank.withdraw src/Vault.sol:${require}:\\d+, Teller.tryServe src/Vault.sol:${tryLine}:\\d+\\)\\n(.*\\n){3}> ${require} \\|         require\\(have >= amount`));
      const failed = await trace([revertHash, '--rpc', node.url, '--abi', LAYOUTS[layout]!]);
      assert.doesNotMatch(failed.stdout, /caught:/);
    });

    it('the explorer shows the caught failure on the transaction page', async () => {
      browser = await launch();
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${node.url}/#/tx/${caughtHash}`);
      await ready(page);
      await page.waitForSelector('#caught');
      assert.equal(await page.textContent('#tx-status'), 'success');
      assert.equal(await page.locator('#source').count(), 0, 'no revert of the transaction itself');
      const card = page.locator('#caught .caught-failure');
      assert.equal(await card.count(), 1);
      assert.match((await card.locator('.revert').textContent()) ?? '', /^execution reverted: not enough \(at Bank.withdraw/);
      assert.deepEqual(
        (await card.locator('.source-stack li').allTextContents()).map((s) => s.replace(/:\d+$/, '')),
        [`Bank.withdraw  src/Vault.sol:${require}`, `Teller.tryServe  src/Vault.sol:${tryLine}`],
      );
      assert.match((await card.locator('.snippet .hit').textContent()) ?? '', /require\(have >= amount, "not enough"\);$/);
      await screenshot(page, `caught-${layout}`);
      // The page links to the step debugger, which offers the caught failure.
      await page.click('#debug-link');
      await page.waitForSelector('[data-renders]');
      assert.equal(await page.locator('.dbg-caught').count(), 1);
    });
  });
}
