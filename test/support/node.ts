/** Shared test support: a live node-rpc server on an ephemeral port, a raw JSON-RPC client, fixtures. */
import { readFileSync } from 'node:fs';
import { startDev, type Running, type StartOptions } from '../../src/lib/start.js';

export const KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
] as const;
export const ADDRS = [
  '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
] as const;

export interface TestNode extends Running {
  url: string;
  wsUrl: string;
  /** One JSON-RPC call; resolves to the whole response envelope. */
  raw(method: string, params?: unknown[]): Promise<RpcResponse>;
  /** One JSON-RPC call; resolves to `result`, throws an Error carrying `code`/`data` on error. */
  rpc<T = any>(method: string, params?: unknown[]): Promise<T>;
  /** POST any body text; resolves to the parsed response (or undefined for an empty body). */
  post(body: string, headers?: Record<string, string>): Promise<{ status: number; json: any; text: string }>;
}

export interface RpcResponse {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: any;
  error?: { code: number; message: string; data?: unknown };
}

export class RpcCallError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

let nextId = 1;

/** Start a node on 127.0.0.1 with an ephemeral port. Close it in `after()`. */
export async function startTestNode(options: StartOptions = {}): Promise<TestNode> {
  const running = await startDev({ port: 0, ...options });
  const url = running.server.url;
  const post = async (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
    const res = await fetch(url, { method: 'POST', headers, body });
    const text = await res.text();
    return { status: res.status, text, json: text ? JSON.parse(text) : undefined };
  };
  const raw = async (method: string, params: unknown[] = []) =>
    (await post(JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }))).json as RpcResponse;
  return {
    ...running,
    url,
    wsUrl: running.server.wsUrl,
    post,
    raw,
    async rpc(method, params = []) {
      const r = await raw(method, params);
      if (r.error) throw new RpcCallError(r.error.code, r.error.message, r.error.data);
      return r.result;
    },
  };
}

export interface Artifact {
  contractName: string;
  abi: any[];
  bytecode: `0x${string}`;
  deployedBytecode: `0x${string}`;
}

const artifactCache = new Map<string, Artifact>();

/** A compiled fixture from fixtures/artifacts (tests run from the package root). */
export function artifact(name: string): Artifact {
  let a = artifactCache.get(name);
  if (!a) {
    a = JSON.parse(readFileSync(new URL(`../../../fixtures/artifacts/${name}.json`, import.meta.url), 'utf8')) as Artifact;
    artifactCache.set(name, a);
  }
  return a;
}

/** A transaction's receipt, polled for: anvil may answer eth_sendTransaction before its block is stored. */
export async function waitForReceipt(n: { rpc(method: string, params?: unknown[]): Promise<any> }, hash: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const r = await n.rpc('eth_getTransactionReceipt', [hash]);
    if (r) return r;
    await new Promise((res) => setTimeout(res, 10));
  }
  throw new Error(`no receipt for ${hash}`);
}
