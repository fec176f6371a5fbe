// newHeads fan-out: 1,000 WebSocket connections (100 with --quick), each subscribed to newHeads.
// Then blocks are mined one at a time with evm_mine; for each block, the time from sending
// evm_mine to the arrival of the last subscriber's notification (so it includes mining the
// block, and the evm_mine round trip is reported beside it). Every subscriber must receive every
// block, in order, with the same header.
//
// The clients run in this process: 1,000 sockets' worth of frame decoding lands on the load
// generator's core, so the figure is an upper bound for the node's own part. Notifications are
// matched by the block number in their text, not parsed; one per block is parsed and checked.

import { performance } from 'node:perf_hooks';
import { WebSocket } from 'ws';
import { median, percentile, type Metrics, type Scenario } from '../harness.js';

interface Subscriber {
  ws: WebSocket;
  id: string;
  /** Number of the last block announced to this subscriber. */
  last: number;
}

function open(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function subscribe(ws: WebSocket): Promise<string> {
  return new Promise((resolve, reject) => {
    ws.once('message', (data) => {
      const msg = JSON.parse(data.toString()) as { result?: string; error?: { message: string } };
      if (typeof msg.result === 'string') resolve(msg.result);
      else reject(new Error(`eth_subscribe: ${msg.error?.message ?? 'no id'}`));
    });
    ws.send('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}');
  });
}

const NUMBER_RE = /"number":"(0x[0-9a-f]+)"/;

const scenario: Scenario = {
  name: 'fanout',
  description: 'newHeads to 1,000 WebSocket subscribers: evm_mine sent → last notification received',
  async run(node) {
    const count = node.options.quick ? 100 : 1_000;
    const blocks = node.options.quick ? 5 : 30;
    const wsUrl = node.url.replace(/^http/, 'ws');
    const subs: Subscriber[] = [];
    try {
      // Connect in batches so the handshakes do not all queue at once.
      for (let i = 0; i < count; i += 100) {
        const batch = await Promise.all(Array.from({ length: Math.min(100, count - i) }, () => open(wsUrl)));
        for (const ws of batch) subs.push({ ws, id: await subscribe(ws), last: -1 });
      }
      let waiting = 0;
      let target = -1;
      let done: (() => void) | undefined;
      let sample: string | undefined;
      let failure: Error | undefined;
      const fail = (e: Error) => {
        failure ??= e;
        done?.();
      };
      for (const s of subs) {
        s.ws.on('message', (data: Buffer) => {
          const text = data.toString();
          const m = NUMBER_RE.exec(text);
          if (!m || !text.includes(s.id)) return fail(new Error(`unexpected message: ${text.slice(0, 200)}`));
          const n = Number(m[1]);
          if (n !== s.last + 1 && s.last !== -1) return fail(new Error(`a subscriber skipped from block ${s.last} to ${n}`));
          s.last = n;
          if (n === target) {
            sample ??= text;
            if (--waiting === 0) done?.();
          }
        });
      }
      const fanout: number[] = [];
      const mine: number[] = [];
      for (let b = 0; b < blocks + 2; b++) {
        const head = Number(await node.rpc.call<string>('eth_blockNumber'));
        target = head + 1;
        waiting = subs.length;
        sample = undefined;
        const all = new Promise<void>((resolve) => (done = resolve));
        const t0 = performance.now();
        await node.rpc.call('evm_mine');
        const t1 = performance.now();
        await all;
        const t2 = performance.now();
        if (failure) throw failure;
        const msg = JSON.parse(sample!) as { method: string; params: { result: { number: string; hash: string } } };
        if (msg.method !== 'eth_subscription' || Number(msg.params.result.number) !== target) throw new Error('bad notification');
        // The first two blocks warm up.
        if (b >= 2) {
          fanout.push(t2 - t0);
          mine.push(t1 - t0);
        }
      }
      const out: Metrics = {
        subscribers: { value: subs.length, unit: 'sockets' },
        'to last one p50': { value: median(fanout), unit: 'ms' },
        'to last one p90': { value: percentile(fanout, 90), unit: 'ms' },
        'to last one max': { value: Math.max(...fanout), unit: 'ms' },
        'evm_mine p50': { value: median(mine), unit: 'ms' },
      };
      return out;
    } finally {
      await Promise.all(
        subs.map(
          (s) =>
            new Promise<void>((resolve) => {
              if (s.ws.readyState === WebSocket.CLOSED) return resolve();
              s.ws.once('close', () => resolve());
              s.ws.close();
            }),
        ),
      );
    }
  },
};

export default scenario;
