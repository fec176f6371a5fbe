import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPublicClient, defineChain, http, webSocket, type Address, type Hex, type PublicClient } from 'viem';
import { subscriptionHub } from '../../src/rpc/subscriptionHub.js';
import { ADDRS, startTestNode, type TestNode } from '../support/node.js';
import { call, deployEvents, events, send, waitFor } from './helpers.js';

const chain = defineChain({
  id: 984,
  name: 'node-rpc',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1'] } },
});
const TAG = ('0x' + '7e'.repeat(32)) as Hex;

describe('viem 2: watchContractEvent, watchBlocks, watchPendingTransactions', () => {
  let n: TestNode;
  let address: Address;
  const clients: Record<'webSocket' | 'http', PublicClient> = {} as never;

  before(async () => {
    n = await startTestNode();
    address = (await deployEvents(n)) as Address;
    clients.webSocket = createPublicClient({ chain, transport: webSocket(n.wsUrl), pollingInterval: 25 });
    clients.http = createPublicClient({ chain, transport: http(n.url), pollingInterval: 25 });
  });
  after(async () => {
    await clients.webSocket.transport.getRpcClient?.().then((c: { close(): void }) => c.close());
    await n.close();
  });

  for (const kind of ['webSocket', 'http'] as const) {
    describe(`over ${kind}`, () => {
      /** After a watcher stops, its filters (http) or subscriptions (webSocket) are gone again. */
      const released = (base: { filters: number; subs: number }) =>
        waitFor(() => n.node.filters.size === base.filters && subscriptionHub(n.node).size === base.subs, 5000, `${kind} watcher released`);
      const registries = () => ({ filters: n.node.filters.size, subs: subscriptionHub(n.node).size });

      test('watchContractEvent: decoded events, filtered by indexed args', async () => {
        const pub = clients[kind];
        const base = registries();
        const abi = events().abi;
        const all: Array<{ eventName: string; args: any }> = [];
        const only9: bigint[] = [];
        const stopAll = pub.watchContractEvent({ address, abi, onLogs: (logs) => all.push(...(logs as any[])) });
        const stop9 = pub.watchContractEvent({ address, abi, eventName: 'Ping', args: { id: 9n }, onLogs: (logs) => only9.push(...logs.map((l: any) => l.args.id)) });
        await new Promise((r) => setTimeout(r, 100)); // filters / subscriptions in place
        await send(n, { to: address, data: call.ping(8, TAG, 'eight'), from: ADDRS[1] });
        await send(n, { to: address, data: call.ping(9, TAG, 'nine') });
        await send(n, { to: address, data: call.many(2) });
        await waitFor(() => all.length === 4 && only9.length === 1, 5000, `${kind} events`);
        assert.ok(n.node.filters.size + subscriptionHub(n.node).size >= base.filters + base.subs + 2, 'watchers registered');
        stopAll();
        stop9();
        await released(base);
        assert.deepEqual(
          all.map((e) => e.eventName),
          ['Ping', 'Ping', 'Pong', 'Pong'],
        );
        assert.deepEqual(all[0].args, { from: ADDRS[1], id: 8n, tag: TAG, note: 'eight' });
        assert.deepEqual(all[3].args, { value: 1n });
        assert.deepEqual(only9, [9n]);
      });

      test('watchBlocks: each new block', async () => {
        const pub = clients[kind];
        const base = registries();
        const start = await pub.getBlockNumber();
        const seen: bigint[] = [];
        const stop = pub.watchBlocks({ onBlock: (b) => seen.push(b.number!), emitOnBegin: false });
        await new Promise((r) => setTimeout(r, 100));
        for (let i = 0; i < 3; i++) {
          await n.node.miner.mineNow();
          if (kind === 'http') await new Promise((r) => setTimeout(r, 60)); // one poll per block
        }
        await waitFor(() => seen.includes(start + 3n), 5000, `${kind} blocks`);
        stop();
        await released(base);
        assert.deepEqual(seen.filter((b) => b > start).slice(0, 3), [start + 1n, start + 2n, start + 3n]);
      });

      test('watchPendingTransactions: hashes of transactions entering the pool', async () => {
        const pub = clients[kind];
        const base = registries();
        const seen: Hex[] = [];
        const stop = pub.watchPendingTransactions({ onTransactions: (hashes) => seen.push(...hashes) });
        await new Promise((r) => setTimeout(r, 100));
        await n.node.miner.setAutomine(false);
        const sent: string[] = [];
        try {
          for (let i = 0; i < 3; i++) sent.push(await n.rpc('eth_sendTransaction', [{ from: ADDRS[2], to: address, data: call.pong(i) }]));
          await waitFor(() => seen.length === 3, 5000, `${kind} pending transactions`);
        } finally {
          stop();
          await n.node.miner.setAutomine(true);
        }
        await released(base);
        assert.deepEqual(seen, sent);
      });
    });
  }
});
