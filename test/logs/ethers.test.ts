import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Contract, JsonRpcProvider, Network, WebSocketProvider, Wallet, type ContractEventPayload } from 'ethers';
import { ADDRS, KEYS, startTestNode, type TestNode } from '../support/node.js';
import { deployEvents, events, waitFor } from './helpers.js';

const network = new Network('node-rpc', 984n);
const TAG = '0x' + '5a'.repeat(32);

describe('ethers 6: events and blocks over WebSocket and HTTP', () => {
  let n: TestNode;
  let address: string;
  let ws: WebSocketProvider;
  let http: JsonRpcProvider;
  let writer: Contract;

  before(async () => {
    n = await startTestNode();
    address = await deployEvents(n);
    ws = new WebSocketProvider(n.wsUrl, network, { staticNetwork: network });
    http = new JsonRpcProvider(n.url, network, { staticNetwork: network, pollingInterval: 25, cacheTimeout: -1 });
    writer = new Contract(address, events().abi, new Wallet(KEYS[1], http));
  });
  after(async () => {
    // Let the eth_unsubscribe calls of removed listeners finish before the socket goes.
    await new Promise((r) => setTimeout(r, 100));
    await ws.destroy();
    http.destroy();
    await n.close();
  });

  test('contract.on over WebSocketProvider: decoded args, indexed filters', async () => {
    const c = new Contract(address, events().abi, ws);
    const pings: ContractEventPayload[] = [];
    const onlyId7: bigint[] = [];
    await c.on('Ping', (...args) => {
      pings.push(args.at(-1) as ContractEventPayload);
    });
    // A topic-filter listener gets the payload only.
    await c.on(c.filters.Ping(null, 7), (payload: ContractEventPayload) => {
      onlyId7.push(payload.args[1]);
    });
    await (await writer.ping(6, TAG, 'six')).wait();
    await (await writer.ping(7, TAG, 'seven')).wait();
    await waitFor(() => pings.length === 2 && onlyId7.length === 1, 5000, 'ping events');
    assert.deepEqual(
      pings.map((p) => [...p.args]),
      [
        [ADDRS[1], 6n, TAG, 'six'],
        [ADDRS[1], 7n, TAG, 'seven'],
      ],
    );
    assert.equal(pings[0].log.address.toLowerCase(), address.toLowerCase());
    assert.deepEqual(onlyId7, [7n]);
    await c.removeAllListeners();
  });

  test("provider.on('block') over WebSocketProvider: every new block number", async () => {
    const seen: number[] = [];
    const start = await ws.getBlockNumber();
    await ws.on('block', (bn: number) => {
      seen.push(bn);
    });
    await new Promise((r) => setTimeout(r, 50)); // subscription in place
    for (let i = 0; i < 3; i++) await n.node.miner.mineNow();
    await waitFor(() => seen.length >= 3, 5000, 'blocks');
    assert.deepEqual(seen.slice(-3), [start + 1, start + 2, start + 3]);
    await ws.off('block');
  });

  test('contract.on and provider.on over HTTP poll through filters', async () => {
    const c = new Contract(address, events().abi, http);
    const pongs: bigint[] = [];
    const blocks: number[] = [];
    await c.on('Pong', (value: bigint) => {
      pongs.push(value);
    });
    await http.on('block', (bn: number) => {
      blocks.push(bn);
    });
    await new Promise((r) => setTimeout(r, 100));
    await (await writer.many(3)).wait();
    await (await writer.pong(42)).wait();
    await waitFor(() => pongs.length === 4, 5000, 'pong events');
    assert.deepEqual(pongs, [0n, 1n, 2n, 42n]);
    await waitFor(() => blocks.length >= 1, 5000, 'block events');
    await c.removeAllListeners();
    await http.off('block');
  });

  test('queryFilter reads past events through eth_getLogs', async () => {
    const c = new Contract(address, events().abi, http);
    const found = await c.queryFilter(c.filters.Ping(ADDRS[1]), 0, 'latest');
    assert.deepEqual(
      found.map((e) => ('args' in e ? e.args[1] : undefined)),
      [6n, 7n],
    );
  });
});
