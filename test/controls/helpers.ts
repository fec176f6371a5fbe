/** Helpers for the test-control tests: fixtures, sending, waiting. */
import { Interface } from 'ethers';
import { ADDRS, artifact, type TestNode } from '../support/node.js';

/** Dev accounts 3.. of the test mnemonic (test/support/node.ts lists 0..2). */
export const MORE_ADDRS = ['0x90F79bf6EB2c4f870365E785982E1f101E93b906', '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65', '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc'] as const;

export const storage = () => artifact('Storage');
export const storageIface = () => new Interface(artifact('Storage').abi);
export const eventsIface = () => new Interface(artifact('Events').abi);

/** Send from `from` (a dev account unless impersonated) and return the receipt (null when not mined). */
export async function send(n: TestNode, tx: { to?: string; data?: string; from?: string; value?: string; gas?: string }): Promise<any> {
  const hash = await n.rpc<string>('eth_sendTransaction', [{ from: ADDRS[0], ...tx }]);
  return n.rpc('eth_getTransactionReceipt', [hash]);
}

export async function deploy(n: TestNode, name: 'Storage' | 'Events', from: string = ADDRS[0]): Promise<string> {
  const r = await send(n, { data: artifact(name).bytecode, from });
  if (!r || r.status !== '0x1') throw new Error(`deploying ${name} failed`);
  return r.contractAddress as string;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function blockNumber(n: TestNode): Promise<number> {
  return Number(await n.rpc<string>('eth_blockNumber'));
}

export async function block(n: TestNode, tag: string | number, full = false): Promise<any> {
  return n.rpc('eth_getBlockByNumber', [typeof tag === 'number' ? '0x' + tag.toString(16) : tag, full]);
}

/** Error code and message of a failing call. */
export async function failure(n: TestNode, method: string, params: unknown[] = []): Promise<{ code: number; message: string }> {
  const r = await n.raw(method, params);
  if (!r.error) throw new Error(`${method} succeeded: ${JSON.stringify(r.result)}`);
  return r.error;
}
