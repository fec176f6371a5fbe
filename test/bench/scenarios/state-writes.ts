// Periodic state writes (`--dump-state <file> --state-interval 1`) while a client sends one request
// at a time: how long the writes stall the node. A fresh instance builds a state of ~6.8 MB
// (4,600 accounts, each with a balance, 400 bytes of code and 4 storage slots) and is probed with
// writes off; its state is then dumped (anvil_dumpState) and loaded into a second fresh instance
// started with `--load-state <it> --dump-state <file> --state-interval 1`, probed the same way.
// anvil has the same flags with the same meaning.

import { gunzipSync } from 'node:zlib';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RpcClient, SkipScenario, percentile, startNode, type NodeSpec, type RunningNode, type Scenario } from '../harness.js';

const hex = (n: number | bigint) => '0x' + n.toString(16);
/** Code of every account: return storage slot 0 (PUSH1 0 SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN), then filler. */
const RETURN_SLOT0 = '60005460005260206000f3';
const CODE_BYTES = 400;
const SLOTS = 4;

const address = (i: number) => '0x' + (0x5e7a7e00 + i).toString(16).padStart(40, '0');
const code = (i: number) => '0x' + (RETURN_SLOT0 + 'fe' + i.toString(16).padStart(8, '0').repeat(CODE_BYTES)).slice(0, CODE_BYTES * 2);
const slotValue = (i: number, s: number) => '0x' + 'a5'.repeat(24) + i.toString(16).padStart(8, '0') + s.toString(16).padStart(8, '0');

/** Give `accounts` accounts a balance, code and storage. */
async function buildState(rpc: RpcClient, accounts: number): Promise<void> {
  const calls: Array<{ method: string; params: unknown[] }> = [];
  const flush = async () => {
    if (calls.length) await rpc.batch(calls.splice(0));
  };
  for (let i = 0; i < accounts; i++) {
    const a = address(i);
    calls.push({ method: 'anvil_setBalance', params: [a, hex(10n ** 18n + BigInt(i))] });
    calls.push({ method: 'anvil_setCode', params: [a, code(i)] });
    for (let s = 0; s < SLOTS; s++) calls.push({ method: 'anvil_setStorageAt', params: [a, hex(s), slotValue(i, s)] });
    if (calls.length >= 600) await flush();
  }
  await flush();
}

interface Probe {
  latencies: number[];
  /** Round trips of the eth_calls alone. */
  calls: number[];
  writes: number;
}

/**
 * For `ms`, eth_blockNumber one at a time (every tenth request an eth_call of an account's code,
 * its answer checked, and every hundredth an anvil_setBalance of an account), each round trip
 * timed; after each, the file's identity (inode, size, mtime) is read, and a change more than
 * 300 ms after the last one counts as a write.
 */
async function probe(rpc: RpcClient, ms: number, accounts: number, file?: string): Promise<Probe> {
  const blockNumber = rpc.encode('eth_blockNumber');
  const latencies: number[] = [];
  const calls: number[] = [];
  let writes = 0;
  let sig = '';
  let lastChange = -Infinity;
  const t0 = performance.now();
  for (let n = 0; performance.now() - t0 < ms; n++) {
    const t = performance.now();
    if (n % 100 === 49) {
      // The state changes as it would under a suite: each write has accounts to read and format anew.
      const i = (n * 31) % accounts;
      await rpc.call('anvil_setBalance', [address(i), hex(10n ** 18n + BigInt(n))]);
    } else if (n % 10 === 9) {
      const i = (n * 7919) % accounts;
      const got = await rpc.call<string>('eth_call', [{ to: address(i), data: '0x' }, 'latest']);
      if (got !== slotValue(i, 0)) throw new Error(`eth_call of account ${i} answered ${got}`);
      calls.push(performance.now() - t);
    } else {
      const raw = await rpc.post(blockNumber);
      if (raw.includes('"error"')) throw new Error(`eth_blockNumber: ${raw.toString()}`);
    }
    const now = performance.now();
    latencies.push(now - t);
    if (file !== undefined) {
      const st = statSync(file, { throwIfNoEntry: false });
      const next = st ? `${st.ino}:${st.size}:${st.mtimeMs}` : '';
      if (next !== sig) {
        if (sig !== '' && now - lastChange > 300) writes++;
        if (sig !== '') lastChange = now;
        sig = next;
      }
    }
  }
  return { latencies, calls, writes };
}

const withArgs = (spec: NodeSpec, extra: string[]): NodeSpec => ({ ...spec, args: (port) => [...spec.args(port), ...extra] });

const scenario: Scenario = {
  name: 'state-writes',
  description: '~6.8 MB of state, --dump-state --state-interval 1: eth_blockNumber (and eth_call, anvil_setBalance) latency while the periodic writes run, beside writes off',
  async run(node) {
    if (!node.spec) throw new SkipScenario('needs nodes started by the bench');
    const quick = node.options.quick;
    const accounts = quick ? 1_000 : 4_600;
    const window = quick ? 3_000 : 10_000;
    const dir = mkdtempSync(join(tmpdir(), 'state-writes-'));
    const loadFile = join(dir, 'built.json');
    const dumpFile = join(dir, 'state.json');
    let off: RunningNode | undefined;
    let on: RunningNode | undefined;
    try {
      // Writes off: build the state, probe, dump it for the second instance.
      off = await startNode(node.spec);
      const rpcOff = new RpcClient(off.url);
      let quiet: Probe;
      try {
        await buildState(rpcOff, accounts);
        await probe(rpcOff, 1_000, accounts);
        quiet = await probe(rpcOff, window, accounts);
        const blob = await rpcOff.call<string>('anvil_dumpState');
        writeFileSync(loadFile, gunzipSync(Buffer.from(blob.slice(2), 'hex')));
      } finally {
        rpcOff.close();
        await off.stop();
      }

      // Writes on: the same state loaded, written every second.
      on = await startNode(withArgs(node.spec, ['--load-state', loadFile, '--dump-state', dumpFile, '--state-interval', '1']), { timeoutMs: 120_000 });
      const rpcOn = new RpcClient(on.url);
      let busy: Probe;
      try {
        await probe(rpcOn, 1_000, accounts, dumpFile);
        busy = await probe(rpcOn, window, accounts, dumpFile);
      } finally {
        rpcOn.close();
      }
      const size = statSync(dumpFile).size;
      return {
        'state file': { value: size / 1e6, unit: 'MB' },
        'writes off: p50': { value: percentile(quiet.latencies, 50), unit: 'ms' },
        'writes off: p99': { value: percentile(quiet.latencies, 99), unit: 'ms' },
        'writes off: max': { value: percentile(quiet.latencies, 100), unit: 'ms' },
        'writes off: eth_call max': { value: percentile(quiet.calls, 100), unit: 'ms' },
        'writes on: p50': { value: percentile(busy.latencies, 50), unit: 'ms' },
        'writes on: p99': { value: percentile(busy.latencies, 99), unit: 'ms' },
        'writes on: max': { value: percentile(busy.latencies, 100), unit: 'ms' },
        'writes on: eth_call max': { value: percentile(busy.calls, 100), unit: 'ms' },
        'writes on: over 20 ms': { value: busy.latencies.filter((x) => x > 20).length, unit: 'requests' },
        'writes on: requests': { value: busy.latencies.length, unit: '' },
        'writes in the window': { value: busy.writes, unit: '' },
      };
    } finally {
      await on?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default scenario;
