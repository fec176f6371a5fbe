/** Helpers for the logs / filters / subscriptions tests: the Events fixture and a raw WebSocket client. */
import { Interface, id as eventTopic, zeroPadValue, toBeHex } from 'ethers';
import { WebSocket } from 'ws';
import { ADDRS, artifact, type TestNode } from '../support/node.js';

export const events = () => artifact('Events');
export const eventsIface = () => new Interface(artifact('Events').abi);

export const PING = eventTopic('Ping(address,uint256,bytes32,string)');
export const PONG = eventTopic('Pong(uint256)');

/** A uint / address as a 32-byte topic. */
export const word = (v: bigint | number | string): string => zeroPadValue(typeof v === 'string' ? v : toBeHex(v), 32).toLowerCase();

export type { RpcLog } from '../../src/format/log.js';

/** Send from a dev account (node-signed) and wait for the receipt. */
export async function send(n: TestNode, tx: { to?: string; data: string; from?: string }): Promise<any> {
  const hash = await n.rpc<string>('eth_sendTransaction', [{ from: tx.from ?? ADDRS[0], ...tx }]);
  const receipt = await n.rpc('eth_getTransactionReceipt', [hash]);
  if (!receipt || receipt.status !== '0x1') throw new Error(`transaction ${hash} failed`);
  return receipt;
}

export async function deployEvents(n: TestNode, from: string = ADDRS[0]): Promise<string> {
  const r = await send(n, { data: events().bytecode, from });
  return r.contractAddress as string;
}

export const call = {
  ping: (id: bigint | number, tag: string, note: string) => eventsIface().encodeFunctionData('ping', [id, tag, note]),
  pong: (v: bigint | number) => eventsIface().encodeFunctionData('pong', [v]),
  many: (count: number) => eventsIface().encodeFunctionData('many', [count]),
  anon: (v: bigint | number) => eventsIface().encodeFunctionData('anon', [v]),
};

/** Poll until `cond` holds (or fail after `ms`). */
export async function waitFor(cond: () => boolean, ms = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A raw JSON-RPC WebSocket client that records every message, notifications apart. */
export class RawWs {
  readonly messages: any[] = [];
  readonly notifications: any[] = [];
  private nextId = 1;
  private readonly waiting = new Map<number, (msg: any) => void>();

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString());
      this.messages.push(msg);
      if (msg.method === 'eth_subscription') this.notifications.push(msg);
      else this.waiting.get(msg.id)?.(msg);
    });
  }

  static open(url: string): Promise<RawWs> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('open', () => resolve(new RawWs(ws)));
      ws.once('error', reject);
    });
  }

  /** One call; resolves to the whole response envelope. */
  request(method: string, params: unknown[] = []): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, (msg) => {
        this.waiting.delete(id);
        resolve(msg);
      });
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  async call<T = any>(method: string, params: unknown[] = []): Promise<T> {
    const r = await this.request(method, params);
    if (r.error) throw Object.assign(new Error(r.error.message), { code: r.error.code });
    return r.result as T;
  }

  /** Notifications of one subscription, results only. */
  results(sub: string): any[] {
    return this.notifications.filter((m) => m.params.subscription === sub).map((m) => m.params.result);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) return resolve();
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}
