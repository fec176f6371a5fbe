/**
 * The fast tier's way in: a node made by createNode in this process, driven through its EIP-1193
 * provider only (the same method table and handlers as HTTP, no server, no child process).
 */
import assert from 'node:assert/strict';
import { createNode } from '../../src/lib/index.js';
import type { Node, NodeOptions } from '../../src/lib/types.js';

export { ADDRS, KEYS, artifact } from '../support/node.js';

export const GWEI = 1_000_000_000n;

export interface Chain {
  node: Node;
  /** One request through the provider; resolves to the result. */
  rpc<T = any>(method: string, ...params: unknown[]): Promise<T>;
  /** A request that must fail with `code`, its message matching `message`. */
  fails(method: string, params: unknown[], code: number, message: RegExp | string): Promise<void>;
  /** A quantity result as a bigint. */
  num(method: string, ...params: unknown[]): Promise<bigint>;
  close(): Promise<void>;
}

export async function chain(options: NodeOptions = {}): Promise<Chain> {
  const node = await createNode(options);
  const rpc = <T = any>(method: string, ...params: unknown[]) => node.provider.request({ method, params }) as Promise<T>;
  return {
    node,
    rpc,
    async fails(method, params, code, message) {
      await assert.rejects(node.provider.request({ method, params }), (err: { code: number; message: string }) => {
        assert.equal(err.code, code, `${method}: ${err.message}`);
        if (typeof message === 'string') assert.equal(err.message, message);
        else assert.match(err.message, message);
        return true;
      });
    },
    async num(method, ...params) {
      return BigInt(await rpc<string>(method, ...params));
    },
    close: () => node.close(),
  };
}

export const hex = (n: bigint | number) => `0x${n.toString(16)}`;

/** A chain's node served over HTTP on a free port: POST a body, get the answer parsed (undefined when the body is empty). */
export interface Http {
  url: string;
  post(body: string): Promise<any>;
}

export async function served(c: Chain): Promise<Http> {
  const { url } = await c.node.listen({ port: 0 });
  return {
    url,
    async post(body) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const text = await res.text();
      return text === '' ? undefined : JSON.parse(text);
    },
  };
}
