/**
 * Transactions coming in: signed raw ones, requests filled and signed with a dev key, unsigned
 * ones from impersonated senders; admission checks, then the pool (and with automine, a block).
 * Requests from one sender are taken in arrival order, so nonces are consecutive.
 */
import type { EventEmitter } from 'node:events';
import type { Common } from '@ethereumjs/common';
import { TransactionType, type TypedTransaction } from '@ethereumjs/tx';
import { Account, bytesToHex, createZeroAddress, type Address } from '@ethereumjs/util';
import { txGasCap } from '../engine/common.js';
import type { NodeStateManager } from '../engine/forkState.js';
import { ChainError, TxFailedError } from '../core/errors.js';
import { askingClient, type Client, type Lock } from '../core/lock.js';
import { revertMessage } from '../exec/revertData.js';
import { checkRequestType, requestType, unsignedTx, withFakeSender } from '../exec/request.js';
import type { Fees } from '../fees/fees.js';
import type { BlockStore } from '../head/store.js';
import type { Accounts } from '../owners/accounts.js';
import type { MiningMode } from '../owners/miningMode.js';
import type { NextBlock } from '../owners/nextBlock.js';
import type { NodeEvents } from './events.js';
import type { PendingTx, TxPool } from './txpool.js';
import { LATEST, PENDING, type BlockRef, type Receipt, type StoredBlock, type TxRequest } from '../core/types.js';
import { publicKeyOf, type DevAccount } from '../wallet/accounts.js';
import { checkAdmission, decodeRaw, RecentSenders } from './admission.js';
import { checkHashes, sidecarOf, versionedHash, type BlobSidecar } from './blobs.js';

/** What intake works on: the chain's rules, the pool and the owners that decide what a sender may send and at what price. */
export interface IntakeHost {
  readonly common: Common;
  readonly config: { readonly chainId: bigint };
  readonly store: BlockStore;
  readonly state: NodeStateManager;
  readonly lock: Lock;
  readonly events: EventEmitter<NodeEvents>;
  readonly pool: TxPool;
  readonly clock: NextBlock;
  readonly fees: Fees;
  readonly wallet: Accounts;
  readonly mining: MiningMode;
  getNonce(address: Address, ref: BlockRef): Promise<bigint>;
  estimateGas(req: TxRequest, ref: BlockRef): Promise<bigint>;
}

/** Mines a block of exactly the given transactions (automine); `admitted`, the first, was admitted on the live state just now. */
export interface TxMiner {
  mine(txs: PendingTx[], requireAll: boolean, admitted?: PendingTx): Promise<StoredBlock>;
}

export class Intake {
  private readonly senderQueues = new Map<string, Promise<unknown>>();
  private readonly senders = new RecentSenders();

  constructor(
    private readonly n: IntakeHost,
    private readonly miner: TxMiner,
  ) {}

  /** Accept a signed transaction and mine it; resolves once its block exists. */
  async sendRawTransaction(raw: Uint8Array): Promise<Uint8Array> {
    const { tx, sidecar } = decodeRaw(raw, this.n.common);
    const hash = tx.hash();
    const hashHex = bytesToHex(hash);
    if (this.n.store.tx(hashHex) || this.n.pool.has(hashHex)) throw new ChainError('already known');
    const from = this.senders.recover(tx, hashHex);
    return this.submit(sidecar ? { tx, from, hash, hashHex, sidecar } : { tx, from, hash, hashHex });
  }

  /** Fill, sign with the dev key of `from` (or send unsigned from an impersonated one), and submit. */
  async sendTransaction(req: TxRequest): Promise<Uint8Array> {
    if (req.from && !this.n.wallet.keys.has(req.from.toString())) return this.sendUnsigned(req);
    // Filling awaits: the client asking is read now, for the lock's turns.
    const client = askingClient();
    const { req: withHashes, sidecar } = this.withBlobs(req);
    return this.inSenderOrder(req.from, async () => {
      const tx = await this.signTransaction(withHashes);
      const hash = tx.hash();
      const ptx: PendingTx = { tx, from: req.from!, hash, hashHex: bytesToHex(hash) };
      if (sidecar) ptx.sidecar = sidecar;
      return this.submit(ptx, client);
    });
  }

  /**
   * A request with `blobs`: the node builds the sidecar (commitments and the fork's proofs), and
   * the request carries the versioned hashes of its commitments (given ones must match them).
   */
  private withBlobs(req: TxRequest): { req: TxRequest; sidecar?: BlobSidecar } {
    if (req.blobs === undefined) {
      // A blob transaction without its blobs would be mined without them: geth's pool refuses it.
      if (req.blobVersionedHashes !== undefined || req.type === 3) throw new ChainError('missing sidecar in blob transaction');
      return { req };
    }
    if (!this.n.common.isActivatedEIP(4844)) throw new ChainError('transaction type not supported: type 3 rejected, pool not yet in Cancun');
    if (req.to === undefined) throw new ChainError('missing "to" in blob transaction');
    const sidecar = sidecarOf(this.n.common, req.blobs);
    const hashes = sidecar.commitments.map(versionedHash);
    if (req.blobVersionedHashes !== undefined) checkHashes(req.blobVersionedHashes, hashes);
    return { req: { ...req, blobs: undefined, blobVersionedHashes: hashes }, sidecar };
  }

  /**
   * Requests from one sender are filled and submitted one after another, so concurrent ones (a
   * batch, parallel clients) get consecutive nonces in arrival order.
   */
  private inSenderOrder<T>(from: Address | undefined, fn: () => Promise<T>): Promise<T> {
    if (!from) return fn();
    const key = from.toString();
    const run = (this.senderQueues.get(key) ?? Promise.resolve()).then(fn, fn);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.senderQueues.set(key, tail);
    void tail.then(() => {
      if (this.senderQueues.get(key) === tail) this.senderQueues.delete(key);
    });
    return run;
  }

  /** eth_signTransaction: fill missing fields and sign with the dev key of `from`. */
  async signTransaction(req: TxRequest): Promise<TypedTransaction> {
    const key = this.keyOf(req.from);
    const filled = await this.fill(req);
    const signed = unsignedTx(filled, this.n.common).sign(key.privateKey);
    // The signer is known: given its public key, the block's run need not recover it from the
    // signature (~45 µs of every eth_sendTransaction).
    signed.cache.senderPubKey = publicKeyOf(key);
    return signed;
  }

  /** eth_fillTransaction: the request with nonce, fees, gas and chain id filled, unsigned. */
  async fillTransaction(req: TxRequest): Promise<TypedTransaction> {
    // With blobs: their versioned hashes filled in (the answer is the transaction, not its sidecar).
    const withHashes = req.blobs !== undefined ? this.withBlobs(req).req : req;
    return unsignedTx(await this.fill({ ...withHashes, from: req.from ?? createZeroAddress() }), this.n.common, false);
  }

  /** The dev account for `from`, or geth's `unknown account`. */
  keyOf(from: Address | undefined): DevAccount {
    if (!from) throw new ChainError('missing from address', undefined, -32602);
    const key = this.n.wallet.keys.get(from.toString());
    if (!key) throw new ChainError(`unknown account ${from.toString()}`);
    return key;
  }

  /** Fill nonce, fees and gas of a request as eth_sendTransaction does. */
  async fill(req: TxRequest): Promise<TxRequest> {
    const out: TxRequest = { ...req, chainId: this.n.config.chainId };
    if (out.chainId !== undefined && req.chainId !== undefined && req.chainId !== this.n.config.chainId) {
      throw new ChainError(`invalid chain id: have ${req.chainId}, want ${this.n.config.chainId}`);
    }
    checkRequestType(req, this.n.common);
    if (out.nonce === undefined) out.nonce = await this.n.getNonce(req.from!, PENDING);
    // Types 0 and 1 pay a gas price; the fee fields decide the type (requestType), and a request
    // that names neither fees nor a type gets EIP-1559 fees, as geth fills it after London.
    const legacy = requestType(req, this.n.common, TransactionType.FeeMarketEIP1559) < TransactionType.FeeMarketEIP1559 || !this.n.common.isActivatedEIP(1559);
    if (legacy) {
      out.gasPrice ??= this.n.fees.gasPrice();
    } else {
      out.maxPriorityFeePerGas ??= this.n.fees.maxPriorityFeePerGas();
      out.maxFeePerGas ??= this.n.fees.feeCapFor(out.maxPriorityFeePerGas);
    }
    // A blob transaction offers twice the next blob base fee by default, as geth fills it.
    if (out.blobVersionedHashes !== undefined) out.maxFeePerBlobGas ??= 2n * this.n.fees.blobBaseFee();
    // In the block it is meant for, as anvil estimates it (the time, number and state it will see).
    if (out.gas === undefined) out.gas = await this.n.estimateGas(out, PENDING);
    return out;
  }

  /**
   * Admission checks, then into the pool. With automine the transaction (and any queued ones it
   * unblocks) are mined at once, one block each, before this resolves. Queued in the lock as
   * `client`'s change (the one asking now by default).
   */
  async submit(ptx: PendingTx, client: Client | undefined = askingClient()): Promise<Uint8Array> {
    return this.n.lock.run(async () => {
      if (this.n.store.tx(ptx.hashHex) || this.n.pool.has(ptx.hashHex)) throw new ChainError('already known');
      const account = (await this.n.state.getAccount(ptx.from)) ?? new Account();
      checkAdmission(ptx.tx, ptx.from, {
        nonce: account.nonce,
        balance: account.balance,
        baseFee: this.n.fees.pendingBaseFee(),
        blockGasLimit: this.n.clock.gasLimit,
        txGasCap: txGasCap(this.n.common),
        blobBaseFee: () => this.n.fees.blobBaseFee(),
      });
      const replaced = this.n.pool.add(ptx);
      if (replaced) this.n.events.emit('dropped', replaced, 'replaced');
      this.n.events.emit('pendingTx', ptx);
      if (this.n.mining.auto) {
        const ready = this.n.pool.split(ptx.from.toString(), account.nonce).pending;
        let failed: TxFailedError | undefined;
        for (const next of ready) {
          this.n.pool.remove(next.hashHex);
          try {
            // The transaction just admitted, first: nothing ran since its admission, whose checks
            // of its sender's nonce and balance and its intrinsic gas the block need not repeat.
            const block = await this.miner.mine([next], true, next === ptx && next === ready[0] ? ptx : undefined);
            if (next === ptx && this.n.mining.throwOnFailures) failed = failure(block.txs.find((t) => t.hashHex === ptx.hashHex)?.receipt, ptx.hashHex, block.number);
          } catch (err) {
            if (next === ptx) throw err;
            // The later ones now sit behind a nonce gap: they stay queued.
            this.n.events.emit('dropped', next, (err as Error).message);
            break;
          }
        }
        if (failed) throw failed;
      }
      return ptx.hash;
    }, client);
  }

  /** Whether `from` may send without a key. */
  isImpersonated(from: Address): boolean {
    return this.n.wallet.canSendUnsigned(from.toString());
  }

  /**
   * Fill and submit a transaction from `req.from` without a signature (impersonated senders,
   * eth_sendUnsignedTransaction).
   */
  async sendUnsigned(req: TxRequest): Promise<Uint8Array> {
    const from = req.from;
    if (!from) throw new ChainError('missing from address', undefined, -32602);
    if (!this.isImpersonated(from) && !this.n.wallet.keys.has(from.toString())) {
      throw new ChainError(`unknown account ${from.toString()}: not a dev account and not impersonated (anvil_impersonateAccount)`);
    }
    const client = askingClient();
    const { req: withHashes, sidecar } = this.withBlobs(req);
    return this.inSenderOrder(from, async () => {
      const tx = withFakeSender(await this.fill(withHashes), this.n.common, from);
      const hash = tx.hash();
      const ptx: PendingTx = { tx, from, hash, hashHex: bytesToHex(hash) };
      if (sidecar) ptx.sidecar = sidecar;
      return this.submit(ptx, client);
    });
  }

  /** A transaction ready to mine: decoded and recovered, or filled and signed (nonces continue past `earlier`). */
  async pendingFor(tx: Uint8Array | TxRequest, earlier: readonly PendingTx[]): Promise<PendingTx> {
    if (tx instanceof Uint8Array) {
      const { tx: decoded, sidecar } = decodeRaw(tx, this.n.common);
      const hash = decoded.hash();
      const hashHex = bytesToHex(hash);
      const ptx: PendingTx = { tx: decoded, from: this.senders.recover(decoded, hashHex), hash, hashHex };
      if (sidecar) ptx.sidecar = sidecar;
      return ptx;
    }
    const from = tx.from;
    if (!from) throw new ChainError('missing from address', undefined, -32602);
    if (!this.n.wallet.keys.has(from.toString()) && !this.isImpersonated(from)) throw new ChainError(`unknown account ${from.toString()}: not a dev account and not impersonated (anvil_impersonateAccount)`);
    const nonce = tx.nonce ?? (await this.n.getNonce(from, LATEST)) + BigInt(earlier.filter((p) => p.from.equals(from)).length);
    const req = { ...tx, nonce };
    const signed = this.n.wallet.keys.has(from.toString()) ? await this.signTransaction(req) : withFakeSender(await this.fill(req), this.n.common, from);
    const hash = signed.hash();
    return { tx: signed, from, hash, hashHex: bytesToHex(hash) };
  }
}

/** The error a failed mined transaction is answered with: the revert reason or EVM error, the hash and block, the revert bytes. */
function failure(receipt: Receipt | undefined, hashHex: string, block: bigint): TxFailedError | undefined {
  if (!receipt || receipt.status === 1) return undefined;
  const what = receipt.error === undefined || receipt.error === 'revert' ? revertMessage(receipt.returnValue) : `execution failed: ${receipt.error}`;
  return new TxFailedError(`${what} (transaction ${hashHex} mined in block ${block})`, receipt.returnValue);
}
