/**
 * `node-rpc trace <tx>` with source maps: file:line on every frame of the call tree, the revert's
 * message and source snippet under it, and `--steps` with the source line beside each opcode.
 * Locations come from the node's sourceTracer, or from the command's own artifacts when the node
 * has none.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { Contract, JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import { loadArtifacts } from '../../src/artifacts/load.js';
import { BIN, stripAnsi } from '../support/cli.js';
import { KEYS, startTestNode, type TestNode } from '../support/node.js';
import { deployFixtures, LAYOUTS, lineOf } from '../support/sourcemaps.js';

function trace(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'trace', ...args], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, NO_COLOR: '1' } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout: stripAnsi(stdout), stderr }),
    );
  });
}

for (const [layout, nodeHasArtifacts] of [['foundry-noopt', true], ['hardhat-opt', true], ['hardhat-noopt', false]] as const) {
  describe(`node-rpc trace with source maps (${layout}, ${nodeHasArtifacts ? "the node's" : "the command's"} artifacts)`, () => {
    let node: TestNode;
    let hash: string;
    let ctorHash: string;
    let more: Record<string, string>;
    before(async () => {
      node = await startTestNode(nodeHasArtifacts ? { artifacts: loadArtifacts([LAYOUTS[layout]!], () => undefined) } : {});
      const signer = new NonceManager(new Wallet(KEYS[0], new JsonRpcProvider(node.url, undefined, { staticNetwork: true })));
      const d = await deployFixtures(layout, signer);
      hash = (await new Contract(d.caller, d.iface.caller, signer).getFunction('sendRequire').send(5, { gasLimit: 200_000 })).hash;
      ctorHash = (await signer.sendTransaction({ data: d.failing(0n), gasLimit: 300_000 })).hash;
      const send = async (data: string) => (await signer.sendTransaction({ to: d.thrower, data, gasLimit: 200_000 })).hash;
      more = {
        custom: await send(d.iface.thrower.encodeFunctionData('custom', [101])),
        panic: await send(d.iface.thrower.encodeFunctionData('index', [3])),
        library: await send(d.iface.thrower.encodeFunctionData('checked', [1])),
      };
    });
    after(async () => node?.close());

    it('file:line on every frame, the revert with its snippet, and --steps beside the source', async () => {
      const r = await trace([hash, '--rpc', node.url, '--abi', LAYOUTS[layout]!, '--steps']);
      assert.equal(r.code, 0, r.stderr);
      const req = lineOf('require(x > 10');
      const [top, inner] = r.stdout.split('\n').filter((l) => /^(0|└─ 1) /.test(l));
      assert.match(inner!, new RegExp(`requireString\\(5\\).* ✗ execution reverted: x must be greater than 10 at src/Thrower.sol:${req}:\\d+$`));
      assert.match(top!, new RegExp(`sendRequire\\(5\\).* ✗ execution reverted: x must be greater than 10 at src/Thrower.sol:${lineOf('thrower.requireString(x);', 1)}:\\d+$`));
      if (nodeHasArtifacts) {
        assert.match(top!, /@ Caller.sendRequire src\/Thrower.sol:\d+/);
        assert.match(inner!, /@ Thrower.requireString src\/Thrower.sol:\d+/);
        assert.match(r.stdout, new RegExp(`\\nexecution reverted: x must be greater than 10 \\(at Thrower.requireString src/Thrower.sol:${req}:\\d+, Caller.sendRequire src/Thrower.sol:\\d+:\\d+\\)\\n(.*\\n){3}> ${req} \\|         require\\(x > 10`));
      }
      assert.match(r.stdout, new RegExp(`\\nSteps\\n`));
      // Each opcode as solc maps it (with the optimizer, a revert tail shared by two functions names one of them).
      if (layout.endsWith('noopt')) assert.match(r.stdout, new RegExp(`\\n1 +\\d+  REVERT +src/Thrower.sol:${req}  require\\(x > 10, "x must be greater than 10"\\);\\n`));
      else assert.match(r.stdout, /\n1 +\d+  REVERT +src\/Thrower.sol:\d+  /);
      assert.match(r.stdout, /\n0 +\d+  STATICCALL +src\/Thrower.sol:\d+  thrower.requireString\(x\);\n/);
    });

    it('a custom error in a contract with immutables, a panic, a revert in a library', async () => {
      const custom = await trace([more.custom!, '--rpc', node.url, '--abi', LAYOUTS[layout]!]);
      assert.match(custom.stdout, new RegExp(`^0  CALL .*custom\\(101\\).* ✗ execution reverted: Bad\\(.*\\) at src/Thrower.sol:${lineOf('revert Bad')}:\\d+$`, 'm'));
      const panic = await trace([more.panic!, '--rpc', node.url, '--abi', LAYOUTS[layout]!]);
      // A panic's last opcode is in compiler-generated code: only the node, which followed the frame, knows the line before it.
      if (nodeHasArtifacts) assert.match(panic.stdout, new RegExp(`^0  CALL .*index\\(3\\).* ✗ execution reverted.* at src/Thrower.sol:${lineOf('items[i]')}:\\d+$`, 'm'));
      else assert.match(panic.stdout, /^0  CALL .*index\(3\).* ✗ execution reverted: out-of-bounds access of an array or bytesN$/m);
      const lib = await trace([more.library!, '--rpc', node.url, '--abi', LAYOUTS[layout]!]);
      assert.match(lib.stdout, new RegExp(`^└─ 1  DELEGATECALL .*atLeast\\(1, 5\\).* ✗ execution reverted: TooSmall\\(1, 5\\) at src/Thrower.sol:${lineOf('revert TooSmall')}:\\d+$`, 'm'));
      if (nodeHasArtifacts) assert.match(lib.stdout, /\nexecution reverted: TooSmall\(1, 5\) \(at Checks.atLeast src\/Thrower.sol:\d+:\d+, Thrower.checked src\/Thrower.sol:\d+:\d+\)\n/);
    });

    it('a constructor that reverted', async () => {
      const r = await trace([ctorHash, '--rpc', node.url, '--abi', LAYOUTS[layout]!]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`^0  CREATE .* ✗ execution reverted: constructor needs a non-zero x at src/Thrower.sol:${lineOf('require(x != 0')}:\\d+$`, 'm'));
    });
  });
}
