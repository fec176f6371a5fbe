/**
 * An unmodified Hardhat 2 project (test/hardhat/project: hardhat-ethers, chai matchers, network
 * helpers) runs its mocha tests against `node-rpc dev`, exactly as `npx hardhat test --network …`
 * does for a user. Compiled with the repository's solc-js; nothing is downloaded.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startCli, type CliNode } from '../support/cli.js';

const PROJECT = fileURLToPath(new URL('../../../test/hardhat/project', import.meta.url));
const HARDHAT = fileURLToPath(new URL('../../../node_modules/hardhat/internal/cli/bootstrap.js', import.meta.url));

function hardhat(task: string, url: string, env: Record<string, string> = {}, files: string[] = []): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [HARDHAT, task, ...(task === 'test' ? ['--network', 'noderpc', ...files] : [])],
      { cwd: PROJECT, timeout: 180_000, env: { ...process.env, ...env, NODE_RPC_URL: url, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', FORCE_COLOR: '0', NO_COLOR: '1' } },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

const hardhatTest = (url: string, env?: Record<string, string>, files?: string[]) => hardhat('test', url, env, files);

describe('a Hardhat 2 project against node-rpc', () => {
  let node: CliNode;
  before(async () => {
    // Compiled first, so the node starts with the project's artifacts (build info, source maps).
    const compiled = await hardhat('compile', '');
    assert.equal(compiled.code, 0, compiled.out);
    node = await startCli(['--artifacts', `${PROJECT}/artifacts`]);
  });
  after(async () => node?.stop());

  test('its tests pass: loadFixture, time, mine, setBalance, impersonation, setStorageAt, snapshots, chai matchers after cheats and on reverts with Solidity stacks, a time-gated call estimated in the next block, a contract compiled for Osaka (CLZ, P256VERIFY)', async () => {
    const r = await hardhatTest(node.url, { NODE_RPC_STACKS: '1' });
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /12 passing/, r.out);
    assert.doesNotMatch(r.out, /failing/);
    assert.match(node.output(), /burn exceeds balance \(at Token\.burn contracts\/Token\.sol:\d+:\d+\)/, 'the log names the line too');
  });

  test('the helpers refuse a node whose client version names no development network (so the first test is meaningful)', async () => {
    const other = await startCli(['--client-version', 'node-rpc/v0.1.0/linux-x64/node-v20']);
    try {
      const r = await hardhatTest(other.url);
      assert.notEqual(r.code, 0);
      assert.match(r.out, /This helper can only be used with Hardhat Network/);
    } finally {
      await other.stop();
    }
  });
});

describe('failed transactions with hardhat-chai-matchers (a Hardhat 2 project)', () => {
  test('with --throw-on-transaction-failures, revertedWithCustomError and revertedWithoutReason see a transaction sent with a gas limit fail, as on the hardhat node', async () => {
    const node = await startCli(['--throw-on-transaction-failures']);
    try {
      const r = await hardhatTest(node.url, {}, ['failures/failures.test.cjs']);
      assert.equal(r.code, 0, r.out);
      assert.match(r.out, /3 passing/, r.out);
      assert.doesNotMatch(r.out, /failing/);
    } finally {
      await node.stop();
    }
  });

  test("without it the matchers take the answered hash for success (anvil's way), so the flag is what makes them pass", async () => {
    const node = await startCli([]);
    try {
      const r = await hardhatTest(node.url, {}, ['failures/failures.test.cjs']);
      assert.notEqual(r.code, 0);
      assert.match(r.out, /but it didn't revert/, r.out);
    } finally {
      await node.stop();
    }
  });
});
