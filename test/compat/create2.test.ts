/**
 * The deterministic CREATE2 deployer, predeployed as anvil does: `forge script` with a salted
 * `new C{salt: s}()` broadcast against node-rpc lands the contract at the address
 * `cast create2` predicts; `--disable-default-create2-deployer` (alias `--no-create2`) leaves it
 * out, and a fork does not get it (there it is the upstream's).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startAnvil } from '../support/anvil.js';
import { startCli, type CliNode } from '../support/cli.js';
import { KEYS } from '../support/node.js';
import { solcForForge } from '../support/solcShim.js';

const bin = (pkg: string, name: string) => join(dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`)), 'bin', name);
const FORGE = bin('@foundry-rs/forge-linux-amd64', 'forge');
const CAST = bin('@foundry-rs/cast-linux-amd64', 'cast');
const DEPLOYER = '0x4e59b44847b379578588920ca78fbf26c0b4956c';
const SALT = '0x000000000000000000000000000000000000000000000000000000000000002a';
const WORK = mkdtempSync(join(tmpdir(), 'node-rpc-create2-'));
const ENV = { ...process.env, HOME: WORK, NO_COLOR: '1', FOUNDRY_DISABLE_NIGHTLY_WARNING: '1' };

function run(cmd: string, args: string[], cwd = WORK): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, timeout: 240_000, env: ENV, maxBuffer: 16 << 20 }, (e, stdout, stderr) =>
      resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, out: stdout.trim(), err: stderr.trim() }),
    );
  });
}

/** A forge project: a contract and a script deploying it with a salt. */
function project(): string {
  const dir = join(WORK, 'project');
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, 'script'), { recursive: true });
  writeFileSync(join(dir, 'foundry.toml'), '[profile.default]\nsrc = "src"\nout = "out"\nlibs = []\noffline = true\n');
  writeFileSync(
    join(dir, 'src', 'Counter.sol'),
    '// SPDX-License-Identifier: MIT\npragma solidity ^0.8.20;\ncontract Counter {\n  uint256 public count = 7;\n  function bump() external { count += 1; }\n}\n',
  );
  writeFileSync(
    join(dir, 'script', 'Deploy.s.sol'),
    `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
import {Counter} from "../src/Counter.sol";
interface Vm { function startBroadcast() external; function stopBroadcast() external; }
contract Deploy {
  Vm constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));
  function run() external returns (address) {
    vm.startBroadcast();
    Counter c = new Counter{salt: bytes32(uint256(42))}();
    vm.stopBroadcast();
    return address(c);
  }
}
`,
  );
  return dir;
}

describe('CREATE2 deployer', () => {
  let node: CliNode;
  before(async () => {
    node = await startCli([]);
  });
  after(async () => {
    await node?.stop();
    rmSync(WORK, { recursive: true, force: true });
  });

  test('is predeployed with the runtime code anvil has', async () => {
    const anvil = await startAnvil();
    try {
      const theirs = await anvil.rpc<string>('eth_getCode', [DEPLOYER, 'latest']);
      assert.match(theirs, /^0x7f/);
      assert.equal(await node.rpc('eth_getCode', [DEPLOYER, 'latest']), theirs);
      assert.equal(await node.rpc('eth_getTransactionCount', [DEPLOYER, 'latest']), '0x0');
    } finally {
      await anvil.close();
    }
  });

  test('forge script broadcasts new C{salt: s}() through it to the predicted address', async () => {
    const dir = project();
    const solc = solcForForge(WORK);
    const script = await run(
      FORGE,
      ['script', 'script/Deploy.s.sol', '--use', solc, '--offline', '--rpc-url', node.url, '--broadcast', '--private-key', KEYS[0]],
      dir,
    );
    assert.equal(script.code, 0, `forge script failed:\n${script.out}\n${script.err}`);
    assert.match(script.out, /ONCHAIN EXECUTION COMPLETE & SUCCESSFUL/);

    const initCode = JSON.parse(readFileSync(join(dir, 'out', 'Counter.sol', 'Counter.json'), 'utf8')).bytecode.object as string;
    const predicted = await run(CAST, ['create2', '--deployer', DEPLOYER, '--salt', SALT, '--init-code', initCode]);
    assert.equal(predicted.code, 0, predicted.err);
    const address = predicted.out;
    assert.match(address, /^0x[0-9a-fA-F]{40}$/);
    assert.match(script.out, new RegExp(`address ${address}`, 'i'));

    const broadcast = JSON.parse(readFileSync(join(dir, 'broadcast', 'Deploy.s.sol', '984', 'run-latest.json'), 'utf8'));
    assert.equal(broadcast.transactions.length, 1);
    assert.equal(broadcast.transactions[0].transaction.to.toLowerCase(), DEPLOYER);
    const receipt = await node.rpc('eth_getTransactionReceipt', [broadcast.transactions[0].hash]);
    assert.equal(receipt.status, '0x1');
    assert.equal(receipt.to, DEPLOYER);
    assert.notEqual(await node.rpc('eth_getCode', [address, 'latest']), '0x');
    const count = await run(CAST, ['call', address, 'count()(uint256)', '--rpc-url', node.url]);
    assert.equal(count.out, '7');
  });

  test('anvil_reset brings it back with the fresh genesis', async () => {
    await node.rpc('anvil_setCode', [DEPLOYER, '0x']);
    assert.equal(await node.rpc('eth_getCode', [DEPLOYER, 'latest']), '0x');
    await node.rpc('anvil_reset', []);
    assert.match(await node.rpc('eth_getCode', [DEPLOYER, 'latest']), /^0x7f/);
  });

  test('--disable-default-create2-deployer and --no-create2 leave it out; a fork reads the upstream', async () => {
    const off = await startCli(['--disable-default-create2-deployer']);
    const alias = await startCli(['--no-create2']);
    try {
      assert.equal(await off.rpc('eth_getCode', [DEPLOYER, 'latest']), '0x');
      assert.equal(await alias.rpc('eth_getCode', [DEPLOYER, 'latest']), '0x');
      // A fork of a chain without it has none: the fork genesis adds only the dev balances.
      const forked = await startCli(['--fork-url', off.url]);
      try {
        assert.equal(await forked.rpc('eth_getCode', [DEPLOYER, 'latest']), '0x');
      } finally {
        await forked.stop();
      }
      // ...and a fork of a chain with it has the upstream's.
      const forkedOn = await startCli(['--fork-url', node.url]);
      try {
        assert.match(await forkedOn.rpc('eth_getCode', [DEPLOYER, 'latest']), /^0x7f/);
      } finally {
        await forkedOn.stop();
      }
    } finally {
      await off.stop();
      await alias.stop();
    }
  });
});
