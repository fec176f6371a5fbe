/**
 * The explorer's reports page in a real headless Chromium: coverage per source file (lines that
 * ran shaded, lines that did not shaded otherwise) and the gas table, on a node started with
 * --coverage and --gas-report after the coverage fixture's suite ran; a plain node says how to
 * get them.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { http } from 'viem';
import type { Browser, Page } from 'playwright-core';
import { startCli, type CliNode } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';
import { hardhat, HARDHAT_PROJECT } from '../coverage/support.js';
import { launch, ready, screenshot } from './browser.js';

const require = createRequire(import.meta.url);
const { scenario } = require(`${HARDHAT_PROJECT}/test/scenario.cjs`) as { scenario: (transport: unknown, artifact: (name: string) => Promise<unknown>) => Promise<unknown> };
/** This test's own build of the fixture, beside the one other tests use. */
const BUILD = 'build-explorer';
const ARTIFACTS = `${HARDHAT_PROJECT}/${BUILD}/artifacts`;
const artifact = async (name: string) => JSON.parse(readFileSync(`${ARTIFACTS}/contracts/${name === 'Bank' ? 'Bank' : 'Proxy'}.sol/${name}.json`, 'utf8'));

describe('explorer: coverage and gas reports', () => {
  let node: CliNode;
  let plain: CliNode;
  let browser: Browser;
  let page: Page;
  const dir = tempDir('node-rpc-explorer-reports-');

  before(async () => {
    const compiled = await hardhat(['compile'], { COVERAGE_BUILD: BUILD });
    assert.equal(compiled.code, 0, compiled.out);
    node = await startCli(['--coverage', `${dir}/coverage`, '--gas-report', '--artifacts', ARTIFACTS]);
    plain = await startCli([]);
    await scenario(http(node.url), artifact);
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  });

  after(async () => {
    await browser?.close();
    await node?.stop();
    await plain?.stop();
  });

  it('shows each source file with the lines that ran and the lines that did not, and the gas per function and deployment', async () => {
    await page.goto(`${node.url}/#/reports`);
    await ready(page);
    // Named by their place in the project, wherever its artifacts folder is.
    const bank = page.locator(`.cov-file[data-path="${HARDHAT_PROJECT}/contracts/Bank.sol"]`);
    assert.match((await bank.locator('p').textContent()) ?? '', /functions 90 % \(9\/10\)/);
    const missed = await bank.locator('.cov-line.missed').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-line'))));
    assert.deepEqual(missed, [49, 60, 61, 62]);
    assert.equal(await bank.locator('.cov-line[data-line="18"]').getAttribute('class'), 'cov-line hit', 'the constructor ran');
    assert.equal(await bank.locator('.cov-line[data-line="1"]').getAttribute('class'), 'cov-line', 'no statement on the license line');
    const shade = await bank.locator('.cov-line.missed').first().evaluate((el) => getComputedStyle(el).backgroundColor);
    const hitShade = await bank.locator('.cov-line.hit').first().evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.notEqual(shade, hitShade);
    assert.notEqual(shade, 'rgba(0, 0, 0, 0)');
    const rows = await page.locator('#gas-methods tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    assert.deepEqual(
      rows.map((r) => r.slice(0, 3)),
      [
        ['Bank', 'deposit', '2'],
        ['Bank', 'setOwner', '1'],
        ['Bank', 'withdraw', '1'],
        ['Counter', 'increment', '3'],
      ],
    );
    assert.equal(await page.locator('#gas-deployments tbody tr').count(), 3);
    await screenshot(page, 'reports');
  });

  it('on a node without the flags, says how to get them', async () => {
    await page.goto(`${plain.url}/#/reports`);
    await ready(page);
    assert.match((await page.locator('#coverage-off').textContent()) ?? '', /start the node with --coverage <dir>/);
    assert.match((await page.locator('#gas-off').textContent()) ?? '', /start the node with --gas-report/);
  });
});
