/** Helpers for the fork tests: an upstream node-rpc with contracts on it, and a fork of it. */
import { AbiCoder, Interface } from 'ethers';
import { ADDRS, artifact, startTestNode, type TestNode } from '../support/node.js';
import type { StartOptions } from '../../src/lib/start.js';
import type { ForkOptions } from '../../src/chain/fork/fork.js';

export const token = () => new Interface(artifact('Token').abi);
export const storage = () => new Interface(artifact('Storage').abi);
export const probe = () => new Interface(artifact('ForkProbe').abi);

/** Send from an account (node-signed or impersonated) and wait for the receipt. */
export async function send(n: TestNode, tx: { to?: string; data?: string; from?: string; value?: string }): Promise<any> {
  const hash = await n.rpc<string>('eth_sendTransaction', [{ from: ADDRS[0], ...tx }]);
  const receipt = await n.rpc('eth_getTransactionReceipt', [hash]);
  if (!receipt || receipt.status !== '0x1') throw new Error(`transaction ${hash} failed`);
  return receipt;
}

export async function deploy(n: TestNode, name: string, args: unknown[] = []): Promise<{ address: string; receipt: any }> {
  const a = artifact(name);
  const ctor = new Interface(a.abi).deploy;
  const encoded = args.length ? AbiCoder.defaultAbiCoder().encode(ctor.inputs, args).slice(2) : '';
  const receipt = await send(n, { data: a.bytecode + encoded });
  return { address: receipt.contractAddress, receipt };
}

export const HOLDER = '0x00000000000000000000000000000000000A11CE';
export const RICH = '0x000000000000000000000000000000000000B0B0';

/** What the upstream holds, for the tests to compare against. */
export interface Upstream {
  node: TestNode;
  token: string;
  storage: string;
  probe: string;
  /** Transaction that deployed the token. */
  deployTx: string;
  /** The block the fork tests fork at (the upstream's head after setup). */
  forkBlock: bigint;
  /** Addresses with a balance (upstream only), for the probe. */
  funded: string[];
}

/** Start an upstream node-rpc and put a token, a storage contract and a probe on it. */
export async function startUpstream(options: StartOptions = {}): Promise<Upstream> {
  const node = await startTestNode(options);
  const t = await deploy(node, 'Token', ['Fork Token', 'FT', 1_000_000n * 10n ** 18n]);
  await send(node, { to: t.address, data: token().encodeFunctionData('transfer', [HOLDER, 5000n]) });
  const s = await deploy(node, 'Storage');
  await send(node, { to: s.address, data: storage().encodeFunctionData('set', [42n]) });
  await send(node, { to: s.address, data: storage().encodeFunctionData('setBalance', [HOLDER, 7n]) });
  const p = await deploy(node, 'ForkProbe');
  await send(node, { to: p.address, data: probe().encodeFunctionData('fill', [40n]) });
  await send(node, { to: RICH, value: '0xde0b6b3a7640000' });
  const funded: string[] = [];
  for (let i = 1; i <= 20; i++) {
    const a = '0x' + (0xf0000n + BigInt(i)).toString(16).padStart(40, '0');
    await node.rpc('anvil_setBalance', [a, '0x' + (1000n * BigInt(i)).toString(16)]);
    funded.push(a);
  }
  // Set at the head, so that block and every later one (the fork block among them) hold them.
  await node.rpc('evm_mine', []);
  const forkBlock = BigInt(await node.rpc<string>('eth_blockNumber'));
  return { node, token: t.address, storage: s.address, probe: p.address, deployTx: t.receipt.transactionHash, forkBlock, funded };
}

/** Fork options for tests: quick to give up. */
export function forkOf(up: Upstream, extra: Partial<ForkOptions> = {}): ForkOptions {
  return { url: up.node.url, blockNumber: up.forkBlock, retries: 2, backoffMs: 20, timeoutMs: 2000, ...extra };
}

export const balanceOf = async (n: TestNode, tokenAddress: string, who: string, block = 'latest'): Promise<bigint> =>
  BigInt(await n.rpc('eth_call', [{ to: tokenAddress, data: token().encodeFunctionData('balanceOf', [who]) }, block]));

/** Upstream HTTP requests the fork's client sent so far. */
export const upstreamRequests = (fork: TestNode): number => fork.node.fork!.client.stats.httpRequests;
