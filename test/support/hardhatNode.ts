/**
 * The hardhat node (`hardhat node` of the hardhat devDependency) as a reference node, for the
 * methods anvil lacks: chain id 984 and the standard dev accounts, on a free port, from a project
 * folder of its own (a config and a link to this package's node_modules, as hardhat wants a local
 * installation).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './anvil.js';
import { tempDir } from './tmp.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface HardhatNode {
  url: string;
  close(): Promise<void>;
}

export async function startHardhatNode(): Promise<HardhatNode> {
  const port = await freePort();
  const dir = tempDir('node-rpc-hardhat-node-');
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{}\n');
  writeFileSync(join(dir, 'hardhat.config.cjs'), 'module.exports = { networks: { hardhat: { chainId: 984 } } };\n');
  const cli = join(dir, 'node_modules', 'hardhat', 'internal', 'cli', 'cli.js');
  const child: ChildProcess = spawn(process.execPath, [cli, 'node', '--hostname', '127.0.0.1', '--port', String(port), '--config', join(dir, 'hardhat.config.cjs')], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the hardhat node exited early: ${stderr}`);
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' });
      if (res.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`the hardhat node did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    async close() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    },
  };
}
