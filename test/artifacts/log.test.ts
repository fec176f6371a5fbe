/**
 * The terminal log of `node-rpc dev --artifacts …`: a failed call prints the stack and the source
 * line beneath the innermost frame; a mined transaction that reverted prints its console.log lines,
 * then the stack. A build folder that disagrees with itself is named once at start-up.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Contract, JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import { startCli, type CliNode } from '../support/cli.js';
import { KEYS } from '../support/node.js';
import { deployFixtures, LAYOUTS, lineOf, type Deployed } from '../support/sourcemaps.js';

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function waitFor(node: CliNode, re: RegExp): Promise<string> {
  const deadline = Date.now() + 10_000;
  while (!re.test(node.output())) {
    if (Date.now() > deadline) assert.fail(`no ${re} in:\n${node.output()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return node.output();
}

for (const layout of ['hardhat-opt', 'foundry-noopt']) {
  describe(`the log with source maps (${layout})`, () => {
    let node: CliNode;
    let d: Deployed;
    let signer: NonceManager;
    before(async () => {
      node = await startCli(['--artifacts', LAYOUTS[layout]!]);
      signer = new NonceManager(new Wallet(KEYS[0], new JsonRpcProvider(node.url, undefined, { staticNetwork: true })));
      d = await deployFixtures(layout, signer);
    });
    after(async () => node?.stop());

    it('a failed call: the message with its stack, and the source line under it', async () => {
      const r = await node.send('eth_call', [{ to: d.caller, data: d.iface.caller.encodeFunctionData('callRequire', [5]) }, 'latest']);
      assert.match(r.error!.message, /\(at Thrower.requireString/);
      const line = lineOf('require(x > 10');
      const out = await waitFor(node, /eth_call: execution reverted: x must be greater than 10 \(at Thrower/);
      assert.match(out, new RegExp(`eth_call: ${esc(r.error!.message)}\\n\\s+at Thrower.requireString src/Thrower.sol:${line}:\\d+\\n\\s+${line} \\|         require\\(x > 10, "x must be greater than 10"\\);\\n\\s+\\|\\s+\\^\\n\\s+from Caller.callRequire src/Thrower.sol:${lineOf('thrower.requireString(x);')}:\\d+`));
    });

    it('a mined transaction that reverted: console.log lines where they happened, then the stack', async () => {
      const thrower = new Contract(d.thrower, d.iface.thrower, signer);
      const tx = await thrower.getFunction('logged').send(5, { gasLimit: 200_000 });
      const line = lineOf('require(x > 10');
      await waitFor(node, new RegExp(`tx ${tx.hash}[^\\n]*reverted: x must be greater than 20\\n\\s+console.log:\\n\\s+before the check 5\\n\\s+at Thrower.logged src/Thrower.sol:${lineOf('require(x > 20')}:\\d+\\n\\s+\\d+ \\|\\s+require\\(x > 20`));

      const caller = new Contract(d.caller, d.iface.caller, signer);
      const deep = await caller.getFunction('sendRequire').send(5, { gasLimit: 200_000 });
      await waitFor(node, new RegExp(`tx ${deep.hash}[^\\n]*reverted: x must be greater than 10\\n\\s+at Thrower.requireString src/Thrower.sol:${line}:\\d+\\n.*\\n.*\\n\\s+from Caller.sendRequire src/Thrower.sol:${lineOf('thrower.requireString(x);', 1)}`));
    });

    it('a custom error in a contract with immutables, a panic, a revert in a library', async () => {
      const send = async (data: string) => (await signer.sendTransaction({ to: d.thrower, data, gasLimit: 200_000 })).hash;
      const custom = await send(d.iface.thrower.encodeFunctionData('custom', [101]));
      await waitFor(node, new RegExp(`tx ${custom}[^\\n]*reverted: Bad\\(0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266, 101\\)\\n\\s+at Thrower.custom src/Thrower.sol:${lineOf('revert Bad')}:\\d+\\n.*revert Bad\\(msg.sender, amount\\);`));
      const panic = await send(d.iface.thrower.encodeFunctionData('divide', [1, 0]));
      await waitFor(node, new RegExp(`tx ${panic}[^\\n]*reverted: panic: division or modulo by zero \\(0x12\\)\\n\\s+at Thrower.divide src/Thrower.sol:${lineOf('a / b')}:\\d+`));
      const lib = await send(d.iface.thrower.encodeFunctionData('checked', [1]));
      await waitFor(node, new RegExp(`tx ${lib}[^\\n]*reverted: TooSmall\\(1, 5\\)\\n\\s+at Checks.atLeast src/Thrower.sol:${lineOf('revert TooSmall')}:\\d+\\n.*\\n.*\\n\\s+from Thrower.checked src/Thrower.sol:${lineOf('Checks.atLeast(x, 5)')}`));
    });

    it('a constructor that reverted, sent as a transaction', async () => {
      const sent = await signer.sendTransaction({ data: d.failing(0n), gasLimit: 300_000 });
      await waitFor(node, new RegExp(`tx ${sent.hash}[^\\n]*reverted: constructor needs a non-zero x[^\\n]*\\n\\s+at Failing.constructor src/Thrower.sol:${lineOf('require(x != 0')}:\\d+`));
    });
  });
}

describe('stale build output', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'node-rpc-stale-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('is named once in the log; the node runs, and the code it no longer matches keeps today’s output', async () => {
    const dir = join(tmp, 'artifacts');
    cpSync(LAYOUTS['hardhat-opt']!, dir, { recursive: true });
    for (const name of ['Thrower', 'Caller']) {
      const path = join(dir, 'src', 'Thrower.sol', `${name}.json`);
      const json = JSON.parse(readFileSync(path, 'utf8'));
      json.deployedBytecode = json.deployedBytecode.replace(/5b/, '5c');
      writeFileSync(path, JSON.stringify(json));
    }
    const node = await startCli(['--artifacts', dir]);
    try {
      const signer = new NonceManager(new Wallet(KEYS[0], new JsonRpcProvider(node.url, undefined, { staticNetwork: true })));
      const d = await deployFixtures('hardhat-opt', signer);
      const r = await node.send('eth_call', [{ to: d.caller, data: d.iface.caller.encodeFunctionData('callRequire', [5]) }, 'latest']);
      assert.equal(r.error?.message, 'execution reverted: x must be greater than 10');
      const warnings = node.output().match(/its source locations are not used/g) ?? [];
      assert.equal(warnings.length, 1, node.output());
      assert.match(node.output(), new RegExp(`${esc(dir)}: src/Thrower.sol:\\w+ differs from the build info`));
    } finally {
      await node.stop();
    }
  });
});
