// What --coverage costs per request, in both request shapes: two fresh node-rpc instances with
// the coverage fixture's artifacts (fixtures/coverage/hardhat, compiled without the optimizer,
// built here first when missing), one plain and one with --coverage. On each: Bank deployed,
// then, taking turns, sequential mined transactions (Bank.deposit, eth_sendTransaction + receipt polled) and
// sequential eth_calls (Bank.sum of 20 numbers, 2,322 instructions). anvil has no
// coverage: skipped there.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Interface } from 'ethers';
import { RpcClient, SkipScenario, median, readCpuMs, repoRoot, startNode, type NodeSpec, type Scenario } from '../harness.js';
import { DEV_ADDRESS, waitReceipt } from '../chain.js';

function artifactsDir(): string {
  const project = join(repoRoot(), 'fixtures', 'coverage', 'hardhat');
  const dir = join(project, 'artifacts');
  if (!existsSync(join(dir, 'build-info'))) {
    execFileSync(process.execPath, [join(repoRoot(), 'node_modules', 'hardhat', 'internal', 'cli', 'bootstrap.js'), 'compile'], { cwd: project, stdio: 'ignore', env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' } });
  }
  return dir;
}

interface Instance {
  pid: number;
  rpc: RpcClient;
  deposit: Record<string, string>;
  call: unknown[];
  stop(): Promise<void>;
}

/** A fresh node-rpc with `extra` flags and Bank deployed on it. */
async function instance(spec: NodeSpec, extra: string[]): Promise<Instance> {
  const fresh = await startNode({ ...spec, args: (port) => [...spec.args(port), ...extra] });
  const rpc = new RpcClient(fresh.url);
  const bank = JSON.parse(readFileSync(join(artifactsDir(), 'contracts', 'Bank.sol', 'Bank.json'), 'utf8')) as { abi: []; bytecode: string };
  const deploy = await rpc.call<string>('eth_sendTransaction', [{ from: DEV_ADDRESS, data: bank.bytecode, gas: '0x2dc6c0' }]);
  const address = (await waitReceipt(rpc, deploy)).contractAddress;
  if (!address) throw new Error('Bank was not deployed');
  const iface = new Interface(bank.abi);
  return {
    pid: fresh.pid,
    rpc,
    deposit: { from: DEV_ADDRESS, to: address, value: '0x1', data: iface.encodeFunctionData('deposit', []), gas: '0x30d40' },
    call: [{ to: address, data: iface.encodeFunctionData('sum', [Array.from({ length: 20 }, (_, i) => i + 1)]) }, 'latest'],
    stop: async () => {
      rpc.close();
      await fresh.stop();
    },
  };
}

/** Round trip in ms; the node's CPU time is added to `cpu[0]`. */
async function timed(n: Instance, cpu: number[], fn: () => Promise<unknown>): Promise<number> {
  const c0 = readCpuMs(n.pid);
  const t0 = performance.now();
  await fn();
  const ms = performance.now() - t0;
  cpu[0]! += readCpuMs(n.pid) - c0;
  return ms;
}

const scenario: Scenario = {
  name: 'coverage',
  description: 'mined transactions and eth_calls on a fresh node, plain and with --coverage (per request p50 of each)',
  async run(node) {
    if (node.label !== 'node-rpc' || node.spec === undefined) throw new SkipScenario('coverage is node-rpc\'s own (--coverage)');
    const rounds = node.options.quick ? 50 : 300;
    const artifacts = artifactsDir();
    const out = mkdtempSync(join(tmpdir(), 'node-rpc-bench-coverage-'));
    const plain = await instance(node.spec, ['--artifacts', artifacts]);
    const covered = await instance(node.spec, ['--artifacts', artifacts, '--coverage', out]).catch(async (err: unknown) => {
      await plain.stop();
      throw err;
    });
    try {
      // One of each on each instance in turn, so the machine's drift falls on both alike.
      const tx = { plain: [] as number[], covered: [] as number[] };
      const call = { plain: [] as number[], covered: [] as number[] };
      // The nodes' CPU time over the measured rounds: [plain tx, covered tx, plain call, covered call].
      const cpu: [number[], number[], number[], number[]] = [[0], [0], [0], [0]];
      const none: number[] = [0];
      const send = async (n: Instance) => waitReceipt(n.rpc, await n.rpc.call<string>('eth_sendTransaction', [n.deposit]));
      const sum = async (n: Instance) => {
        if (BigInt(await n.rpc.call<string>('eth_call', n.call)) !== 210n) throw new Error('sum answered differently');
      };
      for (let i = 0; i < rounds + 10; i++) {
        const warm = i >= 10;
        const a = await timed(plain, warm ? cpu[0] : none, () => send(plain));
        const b = await timed(covered, warm ? cpu[1] : none, () => send(covered));
        const c = await timed(plain, warm ? cpu[2] : none, () => sum(plain));
        const d = await timed(covered, warm ? cpu[3] : none, () => sum(covered));
        if (!warm) continue;
        tx.plain.push(a);
        tx.covered.push(b);
        call.plain.push(c);
        call.covered.push(d);
      }
      return {
        'tx p50, plain': { value: median(tx.plain), unit: 'ms' },
        'tx p50, --coverage': { value: median(tx.covered), unit: 'ms' },
        'call p50, plain': { value: median(call.plain), unit: 'ms' },
        'call p50, --coverage': { value: median(call.covered), unit: 'ms' },
        // CPU time holds up on a busy machine, where round trips do not.
        'node CPU per tx, plain': { value: cpu[0][0] / rounds, unit: 'ms' },
        'node CPU per tx, --coverage': { value: cpu[1][0] / rounds, unit: 'ms' },
        'node CPU per call, plain': { value: cpu[2][0] / rounds, unit: 'ms' },
        'node CPU per call, --coverage': { value: cpu[3][0] / rounds, unit: 'ms' },
      };
    } finally {
      await Promise.all([plain.stop(), covered.stop()]);
      rmSync(out, { recursive: true, force: true });
    }
  },
};

export default scenario;
