/**
 * Soak: `node-rpc dev --public` under mixed load at its limits for SOAK_SECONDS (default 60) over
 * loopback: 180 WebSocket connections a little over their per-connection limit (some subscribed
 * to newHeads), 20 keep-alive HTTP sockets over the per-IP and per-key limits (singles and
 * batches), signed transactions mining blocks, and one WebSocket consumer that stops reading
 * while asking for multi-megabyte answers. The node's RSS stays bounded, the slow consumer is cut
 * (1008), no other connection is closed, and every request is answered exactly once (ids counted).
 * The limiter refuses a share of everything, which is cheap: the load is moderate on purpose.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Interface, Wallet } from 'ethers';
import { BIN } from '../support/cli.js';
import { freePort } from '../support/anvil.js';
import { ADDRS, artifact, KEYS } from '../support/node.js';
import { call, openSocket, poster, request, waitFor, type Socket } from './helpers.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
const HOST = '127.0.0.1';
const KEY = 'soak-key-000000000001';
const SLOW_KEY = 'soak-key-000000000002';
/** Transactions go on a key of their own: one refused by a limit would leave a nonce gap. */
const TX_KEY = 'soak-key-000000000003';
const WS_CONNECTIONS = 180;
const SUBSCRIBERS = 20;

const rssMiB = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every id sent and how many answers it got. */
class Ledger {
  private readonly answers = new Map<number, number>();
  private nextId = 1;
  sent = 0;
  id(): number {
    this.sent++;
    this.answers.set(this.nextId, 0);
    return this.nextId++;
  }
  answered(reply: unknown): void {
    for (const a of Array.isArray(reply) ? reply : [reply]) {
      const id = (a as { id?: unknown }).id;
      if (typeof id === 'number') this.answers.set(id, (this.answers.get(id) ?? 0) + 1);
    }
  }
  get done(): number {
    let n = 0;
    for (const c of this.answers.values()) if (c > 0) n++;
    return n;
  }
  problems(): { missing: number; twice: number; unknown: number } {
    let missing = 0;
    let twice = 0;
    for (const c of this.answers.values()) {
      if (c === 0) missing++;
      if (c > 1) twice++;
    }
    return { missing, twice, unknown: this.answers.size - (this.nextId - 1) };
  }
}

test(`${SECONDS} s of mixed load at the limits: bounded memory, the slow consumer cut, every request answered once`, async (t) => {
  const port = await freePort();
  const url = `http://${HOST}:${port}`;
  const wsUrl = `ws://${HOST}:${port}`;
  const args = ['dev', '--port', String(port), '--host', HOST, '--public', '--silent', '--max-conns-per-ip', '0', '--rate-limit-ip', '100', '--rate-limit-ws', '3', '--rate-limit-key', '400', '--api-key', KEY, '--api-key', SLOW_KEY, '--api-key', TX_KEY];
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const sockets: Socket[] = [];
  const timers: NodeJS.Timeout[] = [];
  try {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`node-rpc exited: ${stderr}`);
      if ((await request(url, { path: '/health' }).catch(() => undefined))?.status === 200) break;
      if (i > 300) throw new Error(`node-rpc did not start: ${stderr}`);
      await sleep(50);
    }
    const keyed = poster(url, { sockets: 10 });
    const publicHttp = poster(url, { sockets: 10 });
    const wallet = new Wallet(KEYS[2]);
    let nonce = 0;
    const signed = async (tx: { to?: string; data?: string; value?: bigint; gasLimit: bigint }) =>
      wallet.signTransaction({ chainId: 984, nonce: nonce++, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, type: 2, ...tx });
    const keyHeaders = { authorization: `Bearer ${KEY}` };
    const txHeaders = { authorization: `Bearer ${TX_KEY}` };
    const send = async (raw: string) => {
      const r = await keyed.post(call('eth_sendRawTransaction', [raw]), txHeaders);
      assert.ok(r.json.result, JSON.stringify(r.json));
      return r.json.result as string;
    };

    // Logs for the slow consumer's large answers: 5,000 in five transactions.
    const deployHash = await send(await signed({ data: artifact('Events').bytecode, gasLimit: 1_000_000n }));
    const receipt = (await keyed.post(call('eth_getTransactionReceipt', [deployHash]), keyHeaders)).json.result;
    const events = receipt.contractAddress as string;
    const many = new Interface(artifact('Events').abi).encodeFunctionData('many', [1000n]);
    for (let i = 0; i < 5; i++) await send(await signed({ to: events, data: many, gasLimit: 3_000_000n }));

    const ledger = new Ledger();
    const baseline = rssMiB(child.pid!);

    // 180 WebSockets, 4 messages a second each on a 3/s limit; the first 20 subscribe to newHeads.
    let heads = 0;
    const unexpectedClose: number[] = [];
    for (let i = 0; i < WS_CONNECTIONS; i++) {
      const s = await openSocket(wsUrl);
      s.ws.removeAllListeners('message');
      s.ws.on('message', (data) => {
        const m = JSON.parse(String(data));
        if (m.method === 'eth_subscription') heads++;
        else ledger.answered(m);
      });
      void s.closed.then(({ code }) => unexpectedClose.push(code));
      if (i < SUBSCRIBERS) s.ws.send(JSON.stringify(call('eth_subscribe', ['newHeads'], ledger.id())));
      sockets.push(s);
    }
    const wsMethods = [['eth_blockNumber', []], ['eth_chainId', []], ['eth_getBalance', [ADDRS[0], 'latest']]] as const;
    sockets.forEach((s, i) => {
      let k = i;
      timers.push(
        setInterval(() => {
          if (s.ws.readyState !== s.ws.OPEN) return;
          k++;
          const [m, p] = wsMethods[k % 3];
          const body = k % 4 === 0 ? [call(m, [...p], ledger.id()), call('eth_chainId', [], ledger.id())] : call(m, [...p], ledger.id());
          s.ws.send(JSON.stringify(body));
        }, 250),
      );
    });

    // The slow consumer: asks for 5,000 logs (about 2 MB) twice a second and reads nothing.
    const slow = await openSocket(wsUrl, { headers: { 'x-api-key': SLOW_KEY } });
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    timers.push(
      setInterval(() => {
        if (slow.ws.readyState === slow.ws.OPEN) slow.ws.send(JSON.stringify(call('eth_getLogs', [{ fromBlock: '0x0', address: events }], 0)));
      }, 500),
    );

    // HTTP: 150 requests a second on the per-IP tier (100/s), 100 batches of 5 a second on the key tier (400/s), two transactions a second.
    const inFlight = new Set<Promise<unknown>>();
    const track = (p: Promise<unknown>) => {
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    };
    let tick = 0;
    timers.push(
      setInterval(() => {
        tick++;
        for (let i = 0; i < 15; i++) track(publicHttp.post(call(i % 2 ? 'eth_blockNumber' : 'eth_gasPrice', [], ledger.id())).then((r) => ledger.answered(r.json)));
        for (let i = 0; i < 10; i++) {
          const batch = Array.from({ length: 5 }, (_, j) => call(j % 2 ? 'eth_getTransactionCount' : 'eth_getBalance', [ADDRS[j % 3], 'latest'], ledger.id()));
          track(keyed.post(batch, keyHeaders).then((r) => ledger.answered(r.json)));
        }
        if (tick % 5 === 0) {
          const id = ledger.id();
          track(signed({ to: ADDRS[1], value: 1n, gasLimit: 21_000n }).then(async (raw) => ledger.answered((await keyed.post({ ...call('eth_sendRawTransaction', [raw]), id }, txHeaders)).json)));
        }
      }, 100),
    );

    const samples: number[] = [];
    let connections = 0;
    const end = Date.now() + SECONDS * 1000;
    while (Date.now() < end) {
      await sleep(1000);
      samples.push(rssMiB(child.pid!));
      if (samples.length === 3) {
        const metrics = (await request(url, { path: '/metrics' })).text;
        connections = Number(/^noderpc_http_connections (\d+)$/m.exec(metrics)![1]);
      }
    }
    for (const timer of timers) clearInterval(timer);
    await Promise.all([...inFlight]);
    await waitFor(() => ledger.done === ledger.sent, 15_000).catch(() => undefined);

    const peak = Math.max(...samples);
    const firstHalf = Math.max(...samples.slice(0, Math.ceil(samples.length / 2)));
    const secondHalf = Math.max(...samples.slice(Math.ceil(samples.length / 2)));
    const metrics = (await request(url, { path: '/metrics' })).text;
    const limited = [...metrics.matchAll(/^noderpc_rate_limited_total\{tier="(\w+)"\} (\d+)$/gm)].map(([, tier, n]) => `${tier} ${n}`).join(', ');
    t.diagnostic(`${ledger.sent} calls, ${heads} newHeads notifications, ${connections} connections; refused: ${limited}; RSS ${baseline.toFixed(0)} MiB at start, peak ${peak.toFixed(0)} (first half ${firstHalf.toFixed(0)}, second ${secondHalf.toFixed(0)}); every 10 s: ${samples.filter((_, i) => i % 10 === 9).map((m) => m.toFixed(0)).join(' ')}`);

    assert.deepEqual(ledger.problems(), { missing: 0, twice: 0, unknown: 0 }, `${ledger.done} of ${ledger.sent} answered`);
    assert.ok(ledger.sent > SECONDS * 1000, `${ledger.sent} calls sent`);
    assert.ok(connections >= WS_CONNECTIONS + 20, `${connections} connections open at once`);
    assert.ok(heads > 0, 'subscribers got new heads');
    assert.match(stderr, /WebSocket client 127\.0\.0\.1:\d+ cut \(close 1008\): \d+ bytes queued that it did not read/);
    assert.deepEqual(unexpectedClose, [], 'no other connection was closed');
    for (const tier of ['ip', 'ws', 'key']) assert.match(metrics, new RegExp(`^noderpc_rate_limited_total\\{tier="${tier}"\\} [1-9]\\d*$`, 'm'), `the ${tier} tier refused some`);
    assert.ok(peak - baseline < 200, `RSS grew by ${(peak - baseline).toFixed(0)} MiB`);
    assert.ok(SECONDS < 20 || secondHalf - firstHalf < 40, `RSS kept growing: ${firstHalf.toFixed(0)} → ${secondHalf.toFixed(0)} MiB`);
    slow.ws.terminate();
    keyed.close();
    publicHttp.close();
  } finally {
    for (const timer of timers) clearInterval(timer);
    for (const s of sockets) s.ws.terminate();
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  }
});
