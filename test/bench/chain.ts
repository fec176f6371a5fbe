// Chain-side helpers for scenarios: the dev account, locally signed
// transactions, fee choice and the ERC20 Token fixture (deployed once per node).

import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ContractFactory, Interface, Wallet, getAddress, type InterfaceAbi } from 'ethers';
import { repoRoot, sleep, type BenchNode, type RpcClient } from './harness.js';

/** Account 0 of `test test … junk`. */
export const DEV_PRIVATE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const DEV_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** Accounts 1..4 of the same mnemonic (funded on both nodes). */
export const OTHER_DEV_ADDRESSES = [
  '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
];

export function devWallet(): Wallet {
  return new Wallet(DEV_PRIVATE_KEY);
}

/** Deterministic, never-used recipient addresses. */
export function recipient(i: number): string {
  return getAddress('0x' + (0xbe_0000_0000n + BigInt(i)).toString(16).padStart(40, '0'));
}

export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

const GWEI = 1_000_000_000n;

/**
 * EIP-1559 fees: a generous cap (4 × eth_gasPrice, at least 50 gwei) so a run of
 * hundreds of transactions never gets stuck on a base-fee change; tip 1 gwei.
 */
export async function chooseFees(rpc: Pick<RpcClient, 'call'>): Promise<Fees> {
  let gasPrice = 0n;
  try {
    gasPrice = BigInt(await rpc.call<string>('eth_gasPrice'));
  } catch {
    /* fall back to the floor */
  }
  const cap = gasPrice * 4n > 50n * GWEI ? gasPrice * 4n : 50n * GWEI;
  return { maxFeePerGas: cap, maxPriorityFeePerGas: GWEI };
}

export async function pendingNonce(rpc: RpcClient, address: string): Promise<number> {
  return Number(BigInt(await rpc.call<string>('eth_getTransactionCount', [address, 'pending'])));
}

export interface Receipt {
  status?: string;
  contractAddress?: string | null;
  blockNumber?: string;
  gasUsed?: string;
}

/** Poll eth_getTransactionReceipt until non-null: back to back for 20 polls, then every ms. */
export async function waitReceipt(
  rpc: RpcClient,
  hash: string,
  timeoutMs = 30_000,
  onPoll?: () => void,
): Promise<Receipt> {
  const t0 = Date.now();
  for (let i = 0; ; i++) {
    onPoll?.();
    const r = await rpc.call<Receipt | null>('eth_getTransactionReceipt', [hash]);
    if (r) return r;
    if (Date.now() - t0 > timeoutMs) throw new Error(`no receipt for ${hash} after ${timeoutMs} ms`);
    if (i >= 20) await sleep(1);
  }
}

// ---------------------------------------------------------------------------
// Token fixture

export interface TokenArtifact {
  abi: InterfaceAbi;
  bytecode: string;
}

export function tokenArtifactPath(): string {
  return join(repoRoot(), 'fixtures', 'artifacts', 'Token.json');
}

export function loadTokenArtifact(): TokenArtifact {
  const path = tokenArtifactPath();
  if (!existsSync(path)) {
    throw new Error('fixtures/artifacts/Token.json is missing (run `npm run fixtures`)');
  }
  const json = JSON.parse(readFileSync(path, 'utf8')) as {
    abi: InterfaceAbi;
    bytecode: string | { object: string };
  };
  let bytecode = typeof json.bytecode === 'string' ? json.bytecode : json.bytecode.object;
  if (!bytecode.startsWith('0x')) bytecode = '0x' + bytecode;
  return { abi: json.abi, bytecode };
}

export interface DeployedToken {
  address: string;
  iface: Interface;
}

export const TOKEN_SUPPLY = 10n ** 27n;

/** Deploy the Token fixture from account 0 once per node (cached in `node.cache`). */
export async function ensureToken(node: BenchNode): Promise<DeployedToken> {
  const cached = node.cache.get('token') as DeployedToken | undefined;
  if (cached) return cached;
  const art = loadTokenArtifact();
  const iface = new Interface(art.abi);
  const wallet = devWallet();
  const deploy = await new ContractFactory(art.abi, art.bytecode).getDeployTransaction('Bench', 'BNCH', TOKEN_SUPPLY);
  const fees = await chooseFees(node.rpc);
  const nonce = await pendingNonce(node.rpc, wallet.address);
  const raw = await wallet.signTransaction({
    type: 2,
    chainId: node.chainId,
    nonce,
    gasLimit: 5_000_000n,
    to: null,
    data: deploy.data,
    value: 0n,
    ...fees,
  });
  const hash = await node.rpc.call<string>('eth_sendRawTransaction', [raw]);
  const receipt = await waitReceipt(node.rpc, hash);
  if (receipt.status !== '0x1' || !receipt.contractAddress) {
    throw new Error(`Token deployment failed (status ${receipt.status})`);
  }
  const token = { address: getAddress(receipt.contractAddress), iface };
  node.cache.set('token', token);
  return token;
}

// ---------------------------------------------------------------------------
// Sequential transfers

export interface TransferRun {
  /** Each transfer's round trip (send until its receipt arrives), ms. */
  lat: Float64Array;
  /** When each transfer's receipt arrived, ms after the first send. */
  done: Float64Array;
  /** Receipt requests in all. */
  polls: number;
}

let transferRuns = 0;

/**
 * `count` sequential ERC20 transfers of the Token fixture from account 0, each to a never-used
 * recipient: eth_sendRawTransaction, then eth_getTransactionReceipt polled until non-null. All are
 * signed before the first is sent, so signing is not measured. Every status and the last
 * recipient's balance are checked.
 */
export async function runTransfers(node: BenchNode, count: number): Promise<TransferRun> {
  const token = await ensureToken(node);
  const wallet = devWallet();
  const fees = await chooseFees(node.rpc);
  const nonce0 = await pendingNonce(node.rpc, wallet.address);
  const base = transferRuns++ * 1_000_000;

  const raws: string[] = [];
  for (let i = 0; i < count; i++) {
    raws.push(
      await wallet.signTransaction({
        type: 2,
        chainId: node.chainId,
        nonce: nonce0 + i,
        gasLimit: 60_000n,
        to: token.address,
        value: 0n,
        data: token.iface.encodeFunctionData('transfer', [recipient(base + i), 1000n + BigInt(i)]),
        ...fees,
      }),
    );
  }

  const lat = new Float64Array(count);
  const done = new Float64Array(count);
  let failed = 0;
  let polls = 0;
  const onPoll = () => {
    polls++;
  };
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    const s = performance.now();
    const hash = await node.rpc.call<string>('eth_sendRawTransaction', [raws[i]]);
    const receipt = await waitReceipt(node.rpc, hash, 30_000, onPoll);
    const now = performance.now();
    lat[i] = now - s;
    done[i] = now - t0;
    if (receipt.status !== '0x1') failed++;
  }
  if (failed > 0) throw new Error(`${failed} of ${count} transfers reverted`);

  // Spot-check the effect of the last transfer.
  const last = count - 1;
  const bal = await node.rpc.call<string>('eth_call', [
    { to: token.address, data: token.iface.encodeFunctionData('balanceOf', [recipient(base + last)]) },
    'latest',
  ]);
  if (BigInt(bal) !== 1000n + BigInt(last)) throw new Error(`unexpected recipient balance ${bal}`);
  return { lat, done, polls };
}
