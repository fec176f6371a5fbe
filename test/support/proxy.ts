/**
 * A JSON-RPC proxy in front of an upstream node, for fork tests and benchmarks: it counts and
 * records what passes through, and a test may answer a request itself (faults) or change the
 * upstream's answer.
 */
import http from 'node:http';
import { once } from 'node:events';

export interface ProxiedRequest {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What the proxy answers: a status and a body, or 'hang' (never answer). */
export type ProxyReply = { status: number; body: string } | 'hang';

/** Decides the reply to one request; `forward` asks the upstream. Default: forward as is. */
export type ProxyHandler = (req: ProxiedRequest, forward: () => Promise<{ status: number; body: string }>) => Promise<ProxyReply>;

export interface RpcProxy {
  url: string;
  /** Every request seen, in order. */
  readonly seen: ProxiedRequest[];
  /** How many requests were seen. */
  readonly requests: number;
  close(): Promise<void>;
}

export async function rpcProxy(target: string, handle: ProxyHandler = (_, forward) => forward()): Promise<RpcProxy> {
  const seen: ProxiedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const r: ProxiedRequest = { headers: req.headers, body: Buffer.concat(chunks).toString() };
      seen.push(r);
      const forward = async () => {
        const up = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: r.body });
        return { status: up.status, body: await up.text() };
      };
      try {
        const reply = await handle(r, forward);
        if (reply !== 'hang') res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
      } catch {
        res.writeHead(502).end();
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    seen,
    get requests() {
      return seen.length;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
