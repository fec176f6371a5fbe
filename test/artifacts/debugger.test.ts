/**
 * The explorer's step debugger in Chromium, against `node-rpc dev --artifacts` with the Vault
 * fixture: Teller.serve(5) writes two slots, calls an internal function, then calls Bank.withdraw,
 * which reverts. Stepping by line reaches the revert; the call stack, EVM stack and storage panes
 * show the right values; step over / out, breakpoints, a composed call and a caught revert.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ContractFactory, Interface, JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import type { Browser, Page } from 'playwright-core';
import { startCli, type CliNode } from '../support/cli.js';
import { artifact, KEYS } from '../support/node.js';
import { deployFixtures, LAYOUTS, lineOf } from '../support/sourcemaps.js';
import { deployVault, vaultLine, type Vault } from '../support/vault.js';
import { launch, ready, screenshot } from '../explorer/browser.js';

const FILE = 'src/Vault.sol';
const word = (n: bigint | number) => '0x' + BigInt(n).toString(16).padStart(64, '0');

interface View {
  step: number;
  file: string;
  line: number | null;
  callStack: string[];
  stack: string[];
  storage: Array<{ slot: string; value: string; changed: boolean }>;
  op: string;
}

describe('explorer: step debugger (foundry-noopt)', () => {
  let node: CliNode;
  let browser: Browser;
  let page: Page;
  let v: Vault;
  let signer: NonceManager;
  let serveHash: string;
  before(async () => {
    node = await startCli(['--artifacts', LAYOUTS['foundry-noopt']!]);
    signer = new NonceManager(new Wallet(KEYS[0], new JsonRpcProvider(node.url, undefined, { staticNetwork: true })));
    v = await deployVault('foundry-noopt', signer);
    serveHash = (await signer.sendTransaction({ to: v.teller, data: v.iface.teller.encodeFunctionData('serve', [5]), gasLimit: 300_000 })).hash;
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  });
  after(async () => {
    await browser?.close();
    await node?.stop();
  });

  const view = (): Promise<View> =>
    page.evaluate(() => {
      const text = (sel: string) => document.querySelector(sel)?.textContent ?? '';
      const current = document.querySelector('#dbg-source .current');
      return {
        step: Number(document.querySelector('[data-renders]')!.getAttribute('data-step')),
        file: text('#dbg-file'),
        line: current ? Number(current.getAttribute('data-line')) : null,
        callStack: [...document.querySelectorAll('#dbg-callstack li')].map((li) => li.textContent ?? ''),
        stack: [...document.querySelectorAll('#dbg-stack li')].map((li) => li.textContent ?? ''),
        storage: [...document.querySelectorAll('#dbg-storage tr')].map((tr) => ({ slot: tr.children[0]!.textContent ?? '', value: tr.children[1]!.textContent ?? '', changed: tr.classList.contains('changed') })),
        op: text('#dbg-op'),
      };
    });

  /** Click a debugger button and wait for the panes to be drawn again. */
  const click = async (id: string): Promise<View> => {
    const before = await page.getAttribute('[data-renders]', 'data-renders');
    await page.click(`#${id}`);
    await page.waitForFunction((b) => document.querySelector('[data-renders]')?.getAttribute('data-renders') !== b, before);
    return view();
  };

  /** Press a key and wait for the panes to be drawn again. */
  const key = async (name: string): Promise<View> => {
    const before = await page.getAttribute('[data-renders]', 'data-renders');
    await page.keyboard.press(name);
    await page.waitForFunction((b) => document.querySelector('[data-renders]')?.getAttribute('data-renders') !== b, before);
    return view();
  };

  const open = async (hash: string) => {
    const url = `${node.url}/#/debug/${hash}`;
    if (page.url() === url) await page.reload();
    else await page.goto(url);
    await ready(page);
    await page.waitForSelector('[data-renders]');
    return view();
  };

  /** Step into, line by line, until `line` (at most `max` lines). */
  const intoUntil = async (line: number, max = 60): Promise<View> => {
    let s = await view();
    for (let i = 0; i < max && s.line !== line; i++) s = await click('dbg-into');
    assert.equal(s.line, line, `stepping by line never reached line ${line}`);
    return s;
  };

  it('stepping by line reaches the revert through both Solidity frames, with the stack and storage at each', async () => {
    let s = await open(serveHash);
    assert.equal(s.step, 0);
    assert.equal(s.file, FILE);
    assert.match((await page.textContent('#dbg-revert-message')) ?? '', /^execution reverted: not enough/);

    s = await intoUntil(vaultLine('visits += 1'));
    assert.deepEqual(s.callStack, [`Teller.serve  ${FILE}:${vaultLine('visits += 1')}`]);
    assert.deepEqual(s.storage, [], 'nothing touched yet');

    // Into the internal function: two Solidity frames in one EVM frame, x = 5 on the stack.
    s = await intoUntil(vaultLine('uint256 y = x * 2'));
    assert.deepEqual(s.callStack, [`Teller.doubled  ${FILE}:${vaultLine('uint256 y = x * 2')}`, `Teller.serve  ${FILE}:${vaultLine('last = doubled(amount)')}`]);
    assert.ok(s.stack.includes(word(5)), `x = 5 on the stack: ${s.stack.join(' ')}`);
    // visits was written: slot 0, 0 → 1, marked.
    assert.deepEqual(s.storage, [{ slot: word(0), value: word(1), changed: true }]);

    s = await intoUntil(vaultLine('return y;'));
    assert.ok(s.stack.includes(word(10)), `y = 10 on the stack: ${s.stack.join(' ')}`);

    // Into Bank: its frame on top of Teller's call site, Bank's storage (balances[teller], read as 0).
    s = await intoUntil(vaultLine('require(have >= amount'));
    assert.deepEqual(s.callStack, [`Bank.withdraw  ${FILE}:${vaultLine('require(have >= amount')}`, `Teller.serve  ${FILE}:${vaultLine('bank.withdraw(amount)')}`]);
    assert.equal(s.storage.length, 1);
    assert.deepEqual([s.storage[0]!.value, s.storage[0]!.changed], [word(0), false]);
    assert.ok(s.stack.includes(word(5)), 'amount = 5 on the stack');

    // The next lines are the revert itself: jump there directly and check the REVERT's operands.
    const r = await click('dbg-revert');
    assert.equal(r.line, vaultLine('require(have >= amount'));
    assert.match(r.op, /\bREVERT\b/);
    assert.equal(r.stack[1], word(100), 'REVERT(offset, size): Error("not enough") is 100 bytes');
    await screenshot(page, 'debugger-revert');
    // Stepping by line from the start: the require is the last line Bank runs; then the revert passes through Teller.
    await click('dbg-start');
    const visited: Array<[number | null, number]> = [];
    let last = await view();
    for (let i = 0; i < 200; i++) {
      const next = await click('dbg-into');
      if (next.step === last.step) break;
      visited.push([next.line, next.callStack.length]);
      last = next;
    }
    const inBank = visited.filter(([, depth]) => depth === 2).map(([line]) => line);
    assert.equal(inBank.at(-1), vaultLine('require(have >= amount'));
    assert.ok(!inBank.includes(vaultLine('balances[msg.sender] = have - amount')));
    assert.deepEqual(visited.at(-1), [vaultLine('bank.withdraw(amount)'), 1]);
    assert.equal(last.step, (await page.evaluate(() => Number(document.querySelector('#dbg-step')!.textContent!.split(' of ')[1]))) - 1, 'the last line runs to the end');
  });

  it('step over and out, by instruction and back', async () => {
    let s = await open(serveHash);
    s = await intoUntil(vaultLine('last = doubled(amount)'));
    s = await click('dbg-over');
    assert.equal(s.line, vaultLine('bank.withdraw(amount)'), 'step over skips doubled()');
    // last (slot 1) is 10 now.
    assert.deepEqual(s.storage.find((x) => x.slot === word(1)), { slot: word(1), value: word(10), changed: true });
    s = await click('dbg-back');
    assert.notEqual(s.line, vaultLine('bank.withdraw(amount)'));
    s = await open(serveHash);
    s = await intoUntil(vaultLine('uint256 y = x * 2'));
    s = await click('dbg-out');
    assert.equal(s.line, vaultLine('last = doubled(amount)'));
    assert.equal(s.callStack.length, 1);
    const at = s.step;
    s = await click('dbg-op-next');
    assert.equal(s.step, at + 1);
    s = await click('dbg-op-prev');
    assert.equal(s.step, at);
    // The same by keys: F10 steps over, [ goes one instruction back.
    s = await key('F10');
    assert.equal(s.line, vaultLine('bank.withdraw(amount)'));
    const over = s.step;
    s = await key('[');
    assert.equal(s.step, over - 1);
  });

  it('breakpoints stop, forwards and backwards', async () => {
    await open(serveHash);
    const toggle = (line: number) => page.click(`#dbg-source [data-line="${line}"] .ln`);
    await toggle(vaultLine('return y;'));
    await toggle(vaultLine('total -= amount;'));
    await toggle(vaultLine('require(have >= amount'));
    assert.equal(await page.locator('#dbg-source .bp').count(), 3);
    let s = await click('dbg-continue');
    assert.equal(s.line, vaultLine('return y;'));
    assert.equal(s.callStack[0], `Teller.doubled  ${FILE}:${vaultLine('return y;')}`);
    s = await click('dbg-continue');
    assert.equal(s.line, vaultLine('require(have >= amount'), 'the line after the revert never runs');
    s = await click('dbg-reverse');
    assert.equal(s.line, vaultLine('return y;'));
    // A breakpoint inside doubled() stops a step over its call.
    s = await click('dbg-start');
    s = await intoUntil(vaultLine('last = doubled(amount)'));
    s = await click('dbg-over');
    assert.equal(s.line, vaultLine('return y;'));
  });

  it('a long transaction is read in windows: the revert 30,000 steps in, with its stack', async () => {
    const d = await deployFixtures('foundry-noopt', signer);
    const hash = (await signer.sendTransaction({ to: d.caller, data: d.iface.caller.encodeFunctionData('callBurn'), gasLimit: 300_000 })).hash;
    let s = await open(hash);
    const total = Number(((await page.textContent('#dbg-step')) ?? '').split(' of ')[1]);
    assert.ok(total > 10_000, `a long trace (${total} steps)`);
    s = await click('dbg-revert');
    assert.ok(s.step > 2000, 'outside the first window');
    assert.equal(s.line, lineOf('while (true) n++;'));
    assert.deepEqual(s.callStack.map((c) => c.split('  ')[0]), ['Thrower.burn', 'Caller.callBurn']);
    assert.ok(s.stack.length > 0, 'the stack of the new window');
    assert.match(s.op, /^pc \d+ {2}\w+/);
    // Back by instruction stays in that window; the end is one more trace away.
    const at = s.step;
    s = await click('dbg-op-prev');
    assert.equal(s.step, at - 1);
    assert.ok(s.stack.length > 0);
    s = await click('dbg-end');
    assert.equal(s.step, total - 1);
    assert.ok(s.stack.length > 0);
    assert.deepEqual(s.callStack.map((c) => c.split('  ')[0]), ['Caller.callBurn']);
  });

  it('code without a source map is stepped by instruction', async () => {
    // Caller and Callee (fixtures/artifacts) have no source map among the node's artifacts.
    const deploy = async (name: string) => {
      const a = artifact(name);
      return (await (await new ContractFactory(a.abi, a.bytecode, signer).deploy()).waitForDeployment()).getAddress();
    };
    const [caller, callee] = [await deploy('Caller'), await deploy('Callee')];
    const hash = (await signer.sendTransaction({ to: caller, data: new Interface(artifact('Caller').abi).encodeFunctionData('callStore', [callee, 7]), gasLimit: 300_000 })).hash;
    let s = await open(hash);
    assert.match(s.file, /no source map, stepping by instruction/);
    assert.equal(s.line, null);
    assert.deepEqual(s.callStack, ['Caller (no source)'.replace('Caller', caller.toLowerCase())]);
    s = await click('dbg-into');
    assert.equal(s.step, 1);
    assert.deepEqual(s.stack, [word(0x80)], 'after PUSH1 0x80');
    assert.match(s.op, /^pc 2 {2}PUSH1/);
    s = await click('dbg-back');
    assert.equal(s.step, 0);
    // Step over the CALL into Callee: the next step is Caller's again.
    const t = (await (await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'debug_traceTransaction', params: [hash, { tracer: 'stepTracer' }] }) })).json()) as { result: { frames: Array<{ callStep: number; end: number; start: number }> } };
    const child = t.result.frames[1]!;
    await page.locator('#dbg-slider').fill(String(child.callStep));
    await page.waitForFunction((n) => document.querySelector('[data-renders]')?.getAttribute('data-step') === String(n), child.callStep);
    assert.match((await view()).op, /\bCALL\b/);
    s = await click('dbg-into');
    assert.equal(s.step, child.start);
    assert.equal(s.callStack.length, 2);
    s = await click('dbg-out');
    assert.equal(s.step, child.end);
    assert.equal(s.callStack.length, 1);
    await page.locator('#dbg-slider').fill(String(child.callStep));
    await page.waitForFunction((n) => document.querySelector('[data-renders]')?.getAttribute('data-step') === String(n), child.callStep);
    s = await click('dbg-over');
    assert.equal(s.step, child.end);
  });

  it('a composed call: the function from the ABI, its arguments, and a caught revert', async () => {
    await page.goto(`${node.url}/#/debug?to=${v.teller}`);
    await ready(page);
    await page.waitForSelector('#dbg-call-function option:nth-child(2)', { state: 'attached' });
    const label = await page.locator('#dbg-call-function option').allTextContents();
    const i = label.findIndex((l) => l.startsWith('tryServe('));
    await page.selectOption('#dbg-call-function', String(i - 1));
    await page.fill('#dbg-call-args', '7');
    await page.click('#dbg-call-run');
    await page.waitForSelector('[data-renders]');
    assert.equal(await page.locator('#dbg-revert-message').count(), 0, 'the call itself succeeded');
    const caught = page.locator('.dbg-caught');
    assert.equal(await caught.count(), 1);
    assert.match((await caught.textContent()) ?? '', /Bank execution reverted: not enough/);
    const s = await click('dbg-caught-0');
    assert.equal(s.line, vaultLine('require(have >= amount'));
    assert.deepEqual(s.callStack.map((c) => c.split('  ')[0]), ['Bank.withdraw', 'Teller.tryServe']);
    assert.match(s.op, /\bREVERT\b/);
    await screenshot(page, 'debugger-call');
  });
});
