/**
 * The explorer's transaction page (in Chromium) shows a reverted transaction's Solidity stack and
 * the source around the reverting line, for each fixture: a revert two frames deep, a custom
 * error, a panic, a revert in a library, in a constructor, in a contract with immutables.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Contract, JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import type { Browser, Page } from 'playwright-core';
import { startCli, type CliNode } from '../support/cli.js';
import { KEYS } from '../support/node.js';
import { deployFixtures, LAYOUTS, lineOf, type Deployed } from '../support/sourcemaps.js';
import { launch, ready, screenshot } from '../explorer/browser.js';

for (const layout of ['hardhat-opt', 'foundry-noopt']) {
  describe(`explorer: Solidity stacks (${layout})`, () => {
    let node: CliNode;
    let browser: Browser;
    let page: Page;
    let d: Deployed;
    let signer: NonceManager;
    before(async () => {
      node = await startCli(['--artifacts', LAYOUTS[layout]!]);
      signer = new NonceManager(new Wallet(KEYS[0], new JsonRpcProvider(node.url, undefined, { staticNetwork: true })));
      d = await deployFixtures(layout, signer);
      browser = await launch();
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    });
    after(async () => {
      await browser?.close();
      await node?.stop();
    });

    const show = async (hash: string) => {
      await page.goto(`${node.url}/#/tx/${hash}`);
      await ready(page);
      await page.waitForSelector('#source-snippet');
      return {
        message: (await page.textContent('#source-message')) ?? '',
        stack: await page.locator('#source-stack li').allTextContents(),
        hit: (await page.textContent('#source-snippet .hit')) ?? '',
        lines: await page.locator('#source-snippet span').count(),
      };
    };
    const send = async (to: string, data: string) => (await signer.sendTransaction({ to, data, gasLimit: 300_000 })).hash;

    it('two frames deep, with the snippet around the reverting line', async () => {
      const hash = await send(d.caller, d.iface.caller.encodeFunctionData('sendRequire', [5]));
      const v = await show(hash);
      assert.match(v.message, /^execution reverted: x must be greater than 10 \(at Thrower.requireString src\/Thrower.sol:\d+:\d+, Caller.sendRequire/);
      assert.equal(v.stack.length, 2);
      assert.match(v.stack[0]!, new RegExp(`^Thrower.requireString  src/Thrower.sol:${lineOf('require(x > 10')}:\\d+$`));
      assert.match(v.stack[1]!, new RegExp(`^Caller.sendRequire  src/Thrower.sol:${lineOf('thrower.requireString(x);', 1)}:\\d+$`));
      assert.equal(v.hit, `${lineOf('require(x > 10')} |         require(x > 10, "x must be greater than 10");`);
      assert.equal(v.lines, 7);
      await screenshot(page, `source-stack-${layout}`);
    });

    it('a custom error in a contract with immutables, a panic, a library, a constructor', async () => {
      const thrower = d.iface.thrower;
      const custom = await show(await send(d.thrower, thrower.encodeFunctionData('custom', [101])));
      assert.match(custom.message, /^execution reverted: Bad\(0xf39F.*, 101\) \(at Thrower.custom/);
      assert.match(custom.hit, /revert Bad\(msg.sender, amount\);$/);
      const panic = await show(await send(d.thrower, thrower.encodeFunctionData('overflow', [2])));
      assert.match(panic.message, /^execution reverted: panic: arithmetic underflow or overflow \(0x11\) \(at Thrower.overflow/);
      assert.match(panic.hit, /return a \+ type\(uint256\).max;$/);
      const lib = await show(await send(d.thrower, thrower.encodeFunctionData('checked', [1])));
      assert.deepEqual(lib.stack.map((s) => s.split('  ')[0]), ['Checks.atLeast', 'Thrower.checked']);
      assert.match(lib.hit, /if \(x < min\) revert TooSmall\(x, min\);$/);
      const ctor = await show((await signer.sendTransaction({ data: d.failing(0n), gasLimit: 300_000 })).hash);
      assert.match(ctor.message, /^execution reverted: constructor needs a non-zero x \(at Failing.constructor/);
      assert.match(ctor.hit, /require\(x != 0, "constructor needs a non-zero x"\);$/);
    });

    it('a successful transaction has no stack', async () => {
      const ok = await new Contract(d.thrower, d.iface.thrower, signer).getFunction('checked').send(9);
      await page.goto(`${node.url}/#/tx/${ok.hash}`);
      await ready(page);
      assert.equal(await page.locator('#source').count(), 0);
    });
  });
}
