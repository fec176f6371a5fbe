/** geth's native prestateTracer (plain and diffMode). */
import type { StateManagerInterface } from '@ethereumjs/common';
import { type Address, KECCAK256_NULL, bigIntToBytes, createAddressFromString, createContractAddress, createContractAddress2, equalsBytes, setLengthLeft } from '@ethereumjs/util';
import type { PrestateTracerOptions } from './config.js';
import type { Frame, StepView, Tracer, TxEndContext, TxStartContext } from './driver.js';
import { bytesToWord, hashHex, hexBytes, hexQuantity, memorySlice, sortedObject, wordToAddressHex } from './hex.js';
import { OP } from './opcodes.js';

interface Account {
  balance: bigint;
  nonce: bigint;
  /** Undefined when disableCode. */
  code: Uint8Array | undefined;
  /** Undefined for accounts without code. */
  codeHash: Uint8Array | undefined;
  /** Undefined when disableStorage; slot (0x word) → value word. */
  storage: Map<string, bigint> | undefined;
  /** The account was empty (EIP-161) when first looked up. */
  empty: boolean;
}

interface PostAccount {
  balance?: bigint;
  code?: Uint8Array;
  codeHash?: Uint8Array;
  nonce?: bigint;
  storage: Map<string, bigint>;
}

export interface PrestateTarget {
  from: Address;
  to?: Address;
  type: 'CALL' | 'CREATE';
  coinbase?: Address;
  authorities?: Address[];
}

const DELEGATION_PREFIX = [0xef, 0x01, 0x00];
const ZERO_HASH = new Uint8Array(32);

export class PrestateTracer implements Tracer {
  readonly asyncSteps = true;
  private readonly pre = new Map<string, Account>();
  private readonly post = new Map<string, PostAccount>();
  private readonly created = new Set<string>();
  private readonly deleted = new Set<string>();
  /** What the last opcode added, undone if that opcode faults before executing. */
  private undo: Array<() => void> = [];
  private sm!: StateManagerInterface;

  constructor(
    private readonly opts: PrestateTracerOptions,
    private readonly target: PrestateTarget,
  ) {}

  async txStart(ctx: TxStartContext): Promise<void> {
    this.sm = ctx.stateManager;
    const t = this.target;
    let to: Address;
    if (t.type === 'CREATE' || t.to === undefined) {
      const nonce = (await this.sm.getAccount(t.from))?.nonce ?? 0n;
      to = createContractAddress(t.from, nonce);
      this.created.add(to.toString());
    } else {
      to = t.to;
    }
    await this.lookupAccount(t.from.toString());
    await this.lookupAccount(to.toString());
    if (t.coinbase !== undefined) await this.lookupAccount(t.coinbase.toString());
    for (const a of t.authorities ?? []) await this.lookupAccount(a.toString());
    this.undo = [];
  }

  async opcode(step: StepView, _cost: bigint, frame: Frame): Promise<void> {
    this.undo = [];
    const code = step.opcode.code;
    const stack = step.stack;
    const n = stack.length;
    switch (code) {
      case OP.SLOAD:
      case OP.SSTORE:
        if (n >= 1) await this.lookupStorage(frame.address ?? step.address.toString(), stack[n - 1]);
        return;
      case OP.EXTCODECOPY:
      case OP.EXTCODEHASH:
      case OP.EXTCODESIZE:
      case OP.BALANCE:
      case OP.SELFDESTRUCT:
        if (n >= 1) {
          await this.lookupAccount(wordToAddressHex(stack[n - 1]));
          const caller = frame.address ?? step.address.toString();
          // EIP-6780: only a contract created in this transaction is actually destroyed.
          if (code === OP.SELFDESTRUCT && this.created.has(caller) && !this.deleted.has(caller)) {
            this.deleted.add(caller);
            this.undo.push(() => this.deleted.delete(caller));
          }
        }
        return;
      case OP.CALL:
      case OP.CALLCODE:
      case OP.DELEGATECALL:
      case OP.STATICCALL:
        if (n >= 5) {
          const addr = wordToAddressHex(stack[n - 2]);
          await this.lookupAccount(addr);
          const code = await this.sm.getCode(createAddressFromString(addr));
          if (code.length === 23 && code[0] === DELEGATION_PREFIX[0] && code[1] === DELEGATION_PREFIX[1] && code[2] === DELEGATION_PREFIX[2]) {
            await this.lookupAccount(hexBytes(code.subarray(3)));
          }
        }
        return;
      case OP.CREATE: {
        const caller = step.address;
        const nonce = (await this.sm.getAccount(caller))?.nonce ?? 0n;
        await this.markCreated(createContractAddress(caller, nonce).toString());
        return;
      }
      case OP.CREATE2:
        if (n >= 4) {
          const init = memorySlice(step.memory, stack[n - 2], stack[n - 3]);
          const salt = setLengthLeft(bigIntToBytes(stack[n - 4]), 32);
          await this.markCreated(createContractAddress2(step.address, salt, init).toString());
        }
        return;
    }
  }

  fault(): void {
    for (const u of this.undo.reverse()) u();
    this.undo = [];
  }

  private async markCreated(addr: string): Promise<void> {
    await this.lookupAccount(addr);
    if (!this.created.has(addr)) {
      this.created.add(addr);
      this.undo.push(() => this.created.delete(addr));
    }
  }

  private async lookupAccount(addr: string): Promise<void> {
    if (this.pre.has(addr)) return;
    const address = createAddressFromString(addr);
    const acct = await this.sm.getAccount(address);
    const code = await this.sm.getCode(address);
    const balance = acct?.balance ?? 0n;
    const nonce = acct?.nonce ?? 0n;
    const hasCode = acct !== undefined && !equalsBytes(acct.codeHash, KECCAK256_NULL);
    const entry: Account = {
      balance,
      nonce,
      code: this.opts.disableCode ? undefined : code,
      codeHash: hasCode ? acct!.codeHash : undefined,
      storage: this.opts.disableStorage ? undefined : new Map(),
      empty: !(nonce > 0n || code.length > 0 || balance !== 0n),
    };
    this.pre.set(addr, entry);
    this.undo.push(() => this.pre.delete(addr));
  }

  private async lookupStorage(addr: string, slot: bigint): Promise<void> {
    if (this.opts.disableStorage) return;
    if (!this.pre.has(addr)) await this.lookupAccount(addr);
    const storage = this.pre.get(addr)!.storage!;
    const key = hashHex(slot);
    if (storage.has(key)) return;
    const raw = await this.sm.getStorage(createAddressFromString(addr), setLengthLeft(bigIntToBytes(slot), 32));
    storage.set(key, bytesToWord(raw));
    this.undo.push(() => storage.delete(key));
  }

  async txEnd(ctx: TxEndContext): Promise<void> {
    const sm = ctx.stateManager;
    if (this.opts.diffMode) {
      for (const [addr, state] of this.pre) {
        // The deleted account's state is pruned from `post` but kept in `pre`.
        if (this.deleted.has(addr)) continue;
        const address = createAddressFromString(addr);
        const acct = await sm.getAccount(address);
        const post: PostAccount = { storage: new Map() };
        let modified = false;
        const newBalance = acct?.balance ?? 0n;
        const newNonce = acct?.nonce ?? 0n;
        if (newBalance !== state.balance) {
          modified = true;
          post.balance = newBalance;
        }
        if (newNonce !== state.nonce) {
          modified = true;
          post.nonce = newNonce;
        }
        const newCodeHash = acct !== undefined && !equalsBytes(acct.codeHash, KECCAK256_NULL) ? acct.codeHash : ZERO_HASH;
        if (!equalsBytes(newCodeHash, state.codeHash ?? ZERO_HASH)) {
          modified = true;
          post.codeHash = newCodeHash;
        }
        if (!this.opts.disableCode) {
          const newCode = await sm.getCode(address);
          if (!equalsBytes(newCode, state.code ?? new Uint8Array(0))) {
            modified = true;
            post.code = newCode;
          }
        }
        if (!this.opts.disableStorage && state.storage !== undefined) {
          for (const [key, val] of Array.from(state.storage)) {
            if (val === 0n) state.storage.delete(key);
            const newVal = bytesToWord(await sm.getStorage(address, hexToBytes(key)));
            if (val === newVal) {
              state.storage.delete(key);
            } else {
              modified = true;
              if (newVal !== 0n) post.storage.set(key, newVal);
            }
          }
        }
        if (modified) this.post.set(addr, post);
        else this.pre.delete(addr);
      }
    }
    // Accounts that were empty before the transaction are left out unless asked for.
    if (!this.opts.includeEmpty) {
      for (const [addr, state] of Array.from(this.pre)) if (state.empty) this.pre.delete(addr);
    }
  }

  result(): unknown {
    const pre = sortedObject(Array.from(this.pre, ([a, s]) => [a, encodePre(s)] as [string, Record<string, unknown>]));
    if (!this.opts.diffMode) return pre;
    const post = sortedObject(Array.from(this.post, ([a, s]) => [a, encodePost(s)] as [string, Record<string, unknown>]));
    return { post, pre };
  }
}

function encodeStorage(storage: Map<string, bigint>): Record<string, string> {
  return sortedObject(Array.from(storage, ([k, v]) => [k, hashHex(v)] as [string, string]));
}

function encodePre(s: Account): Record<string, unknown> {
  const out: Record<string, unknown> = { balance: hexQuantity(s.balance) };
  if (s.code !== undefined && s.code.length > 0) out.code = hexBytes(s.code);
  if (s.codeHash !== undefined) out.codeHash = hexBytes(s.codeHash);
  if (s.nonce !== 0n) out.nonce = Number(s.nonce);
  if (s.storage !== undefined && s.storage.size > 0) out.storage = encodeStorage(s.storage);
  return out;
}

function encodePost(s: PostAccount): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.balance !== undefined) out.balance = hexQuantity(s.balance);
  if (s.code !== undefined && s.code.length > 0) out.code = hexBytes(s.code);
  if (s.codeHash !== undefined) out.codeHash = hexBytes(s.codeHash);
  if (s.nonce !== undefined && s.nonce !== 0n) out.nonce = Number(s.nonce);
  if (s.storage.size > 0) out.storage = encodeStorage(s.storage);
  return out;
}

function hexToBytes(hex: string): Uint8Array {
  const h = hex.startsWith('0x') ? hex.slice(2) : hex;
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.slice(i * 2, i * 2 + 2), 16);
  return out;
}
