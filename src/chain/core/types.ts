/** Plain chain records kept by the node (no JSON here; src/format turns them into RPC objects). */
import type { Block } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { Address } from '@ethereumjs/util';

/** One log as the EVM emits it: [address, topics, data]. */
export type RawLog = [Uint8Array, Uint8Array[], Uint8Array];

export interface Receipt {
  /** Success (1) or failure (0); before Byzantium the receipt itself carries `root` instead. */
  status: 0 | 1;
  /** The state root after the transaction: what a pre-Byzantium receipt carries in place of a status (EIP-658). */
  root?: Uint8Array;
  gasUsed: bigint;
  cumulativeGasUsed: bigint;
  effectiveGasPrice: bigint;
  contractAddress?: Address;
  logs: RawLog[];
  /** Block-wide index of this receipt's first log. */
  firstLogIndex: number;
  bloom: Uint8Array;
  /** What the top call returned (revert data when status is 0). */
  returnValue: Uint8Array;
  /** EVM error of a failed transaction, e.g. "revert", "out of gas". */
  error?: string;
  blobGasUsed?: bigint;
  blobGasPrice?: bigint;
}

/** The blobs of a blob transaction with their KZG commitments and proofs (the network form's sidecar). */
export interface BlobSidecar {
  /** 0: one proof per blob (Cancun, Prague); 1: 128 cell proofs per blob (EIP-7594, Osaka on). */
  version: number;
  blobs: Uint8Array[];
  commitments: Uint8Array[];
  proofs: Uint8Array[];
}

export interface MinedTx {
  tx: TypedTransaction;
  /** A blob transaction's sidecar, kept for the blob fetch methods and routes. */
  sidecar?: BlobSidecar;
  hash: Uint8Array;
  hashHex: string;
  from: Address;
  index: number;
  block: StoredBlock;
  receipt: Receipt;
}

export interface StoredBlock {
  block: Block;
  number: bigint;
  hash: Uint8Array;
  hashHex: string;
  txs: MinedTx[];
  /** State root the block was built on, when it differs from the parent's (state edited between blocks). */
  preStateRoot?: Uint8Array;
}

export type BlockTag = 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized';

/** A block reference: a tag, a number, or an EIP-1898 hash reference. */
export type BlockRef =
  | { kind: 'tag'; tag: BlockTag }
  | { kind: 'number'; number: bigint }
  | { kind: 'hash'; hash: Uint8Array; requireCanonical: boolean };

export const LATEST: BlockRef = { kind: 'tag', tag: 'latest' };
export const PENDING: BlockRef = { kind: 'tag', tag: 'pending' };

/** Whether `ref` names the pending block (the one mined next). */
export function isPending(ref: BlockRef): boolean {
  return ref.kind === 'tag' && ref.tag === 'pending';
}

/** A transaction or call as a caller describes it (eth_call, eth_sendTransaction, ...). */
export interface TxRequest {
  from?: Address;
  to?: Address;
  gas?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  value?: bigint;
  data?: Uint8Array;
  nonce?: bigint;
  type?: number;
  chainId?: bigint;
  accessList?: Array<{ address: Address; storageKeys: Uint8Array[] }>;
  authorizationList?: Array<{ chainId: bigint; address: Address; nonce: bigint; yParity: bigint; r: bigint; s: bigint }>;
  maxFeePerBlobGas?: bigint;
  blobVersionedHashes?: Uint8Array[];
  /** Blobs for eth_sendTransaction: the node builds their commitments and proofs. */
  blobs?: Uint8Array[];
}

/**
 * A block's fields as a caller overrides them for the calls it runs (geth's BlockOverrides:
 * debug_traceCall, eth_simulateV1). Each method's params say which fields it takes.
 */
export interface BlockOverrides {
  number?: bigint;
  difficulty?: bigint;
  time?: bigint;
  gasLimit?: bigint;
  feeRecipient?: Address;
  prevRandao?: Uint8Array;
  baseFeePerGas?: bigint;
  blobBaseFee?: bigint;
  /** The block's withdrawals (eth_simulateV1 builds the block's body with them). */
  withdrawals?: Array<{ index: bigint; validatorIndex: bigint; address: Address; amount: bigint }>;
}

/** Per-account state override for eth_call (geth's StateOverride). */
export interface AccountOverride {
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  /** Replace the whole storage. */
  state?: Array<[Uint8Array, Uint8Array]>;
  /** Patch individual slots. */
  stateDiff?: Array<[Uint8Array, Uint8Array]>;
  /** Move the precompile at this address to another (eth_simulateV1; see exec/precompileMoves.ts). */
  movePrecompileToAddress?: Address;
}
export type StateOverrides = Array<[Address, AccountOverride]>;
