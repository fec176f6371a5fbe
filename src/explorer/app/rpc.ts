/** JSON-RPC over one WebSocket: calls, batches and subscriptions, for any node (node-rpc, anvil, geth). */
import { RpcError } from '../../rpc/errors.js';

export { RpcError };

type Waiter = { resolve: (v: unknown) => void; reject: (e: Error) => void };
type Answer = { id?: number; result?: unknown; error?: { code: number; message: string; data?: unknown }; method?: string; params?: { subscription: string; result: unknown } };

export class Rpc {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiter>();
  private readonly subscriptions = new Map<string, (value: unknown) => void>();
  /** Called once when the socket closes. */
  onClose: (() => void) | undefined;

  private constructor(
    private readonly ws: WebSocket,
    readonly url: string,
  ) {
    ws.onmessage = (e) => this.receive(String(e.data));
    ws.onclose = () => {
      for (const w of this.waiting.values()) w.reject(new RpcError(-32000, 'connection closed'));
      this.waiting.clear();
      this.onClose?.();
    };
  }

  static connect(url: string): Promise<Rpc> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.onopen = () => resolve(new Rpc(ws, url));
      ws.onerror = () => reject(new Error(`cannot connect to ${url}`));
    });
  }

  private receive(text: string): void {
    let msg: Answer | Answer[];
    try {
      msg = JSON.parse(text) as Answer | Answer[];
    } catch {
      return;
    }
    for (const m of Array.isArray(msg) ? msg : [msg]) {
      if (m.method === 'eth_subscription' && m.params) {
        this.subscriptions.get(m.params.subscription)?.(m.params.result);
        continue;
      }
      if (typeof m.id !== 'number') continue;
      const w = this.waiting.get(m.id);
      if (!w) continue;
      this.waiting.delete(m.id);
      if (m.error) w.reject(new RpcError(m.error.code, m.error.message, m.error.data));
      else w.resolve(m.result);
    }
  }

  call<T>(method: string, params: unknown[] = []): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  /** Several calls in one batch; each answer or error in its place. */
  batch<T>(calls: Array<[string, unknown[]]>): Promise<Array<T | RpcError>> {
    if (calls.length === 0) return Promise.resolve([]);
    const ids = calls.map(() => this.nextId++);
    const answers = ids.map(
      (id) =>
        new Promise<T | RpcError>((resolve) => {
          this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject: (e) => resolve(e instanceof RpcError ? e : new RpcError(-32000, e.message)) });
        }),
    );
    this.ws.send(JSON.stringify(calls.map(([method, params], i) => ({ jsonrpc: '2.0', id: ids[i], method, params }))));
    return Promise.all(answers);
  }

  /** eth_subscribe; the returned function unsubscribes. */
  async subscribe(kind: string, onValue: (value: unknown) => void): Promise<() => void> {
    const id = await this.call<string>('eth_subscribe', [kind]);
    this.subscriptions.set(id, onValue);
    return () => {
      this.subscriptions.delete(id);
      this.call('eth_unsubscribe', [id]).catch(() => undefined);
    };
  }

  close(): void {
    this.ws.close();
  }
}
