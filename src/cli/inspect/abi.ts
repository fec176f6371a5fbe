/**
 * Names for selectors and event topics: a few well-known signatures built in, plus whatever ABIs
 * the user points at (ABI arrays, or compiler artifacts holding an `abi`, as files or directories).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { keccak_256 } from '@noble/hashes/sha3.js';

const WELL_KNOWN = [
  // ERC-20
  'transfer(address,uint256)',
  'transferFrom(address,address,uint256)',
  'approve(address,uint256)',
  'balanceOf(address)',
  'allowance(address,address)',
  'totalSupply()',
  'name()',
  'symbol()',
  'decimals()',
  // ERC-721 / ERC-1155
  'ownerOf(uint256)',
  'safeTransferFrom(address,address,uint256)',
  'safeTransferFrom(address,address,uint256,bytes)',
  'setApprovalForAll(address,bool)',
  'safeTransferFrom(address,address,uint256,uint256,bytes)',
  // WETH, multicall, ownership
  'deposit()',
  'withdraw(uint256)',
  'multicall(bytes[])',
  'owner()',
  'transferOwnership(address)',
];
const WELL_KNOWN_EVENTS = [
  'Transfer(address,address,uint256)',
  'Approval(address,address,uint256)',
  'ApprovalForAll(address,address,bool)',
  'OwnershipTransferred(address,address)',
  'Deposit(address,uint256)',
  'Withdrawal(address,uint256)',
];

const hex = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');
const hash = (sig: string) => keccak_256(new TextEncoder().encode(sig));

interface AbiParam {
  type: string;
  components?: AbiParam[];
}
interface AbiEntry {
  type?: string;
  name?: string;
  inputs?: AbiParam[];
}

/** Canonical type of a parameter: tuples spelled out as `(t1,t2)` plus any array suffix. */
function canonical(p: AbiParam): string {
  if (p.type.startsWith('tuple')) return `(${(p.components ?? []).map(canonical).join(',')})${p.type.slice(5)}`;
  return p.type;
}

export class Signatures {
  /** 4-byte selector (0x + 8 hex) → function or error signature. */
  readonly functions = new Map<string, string>();
  /** topic0 (0x + 64 hex) → event signature. */
  readonly events = new Map<string, string>();

  constructor() {
    for (const s of WELL_KNOWN) this.functions.set(hex(hash(s).subarray(0, 4)), s);
    for (const s of WELL_KNOWN_EVENTS) this.events.set(hex(hash(s)), s);
  }

  addAbi(abi: AbiEntry[]): void {
    for (const e of abi) {
      if (!e || typeof e.name !== 'string' || !Array.isArray(e.inputs)) continue;
      const sig = `${e.name}(${e.inputs.map(canonical).join(',')})`;
      if (e.type === 'function' || e.type === 'error') this.functions.set(hex(hash(sig).subarray(0, 4)), sig);
      else if (e.type === 'event') this.events.set(hex(hash(sig)), sig);
    }
  }

  /** Load ABIs from files or directories (recursively, `*.json`); unreadable files are skipped. */
  load(paths: string[], limit = 5000): void {
    let seen = 0;
    const visit = (path: string) => {
      if (seen >= limit) return;
      let st;
      try {
        st = statSync(path);
      } catch {
        throw new Error(`--abi: cannot read ${path}`);
      }
      if (st.isDirectory()) {
        for (const name of readdirSync(path).sort()) {
          const full = join(path, name);
          if (name.endsWith('.json') || statSync(full).isDirectory()) visit(full);
        }
        return;
      }
      seen++;
      try {
        const json = JSON.parse(readFileSync(path, 'utf8')) as unknown;
        const abi = Array.isArray(json) ? json : (json as { abi?: unknown })?.abi;
        if (Array.isArray(abi)) this.addAbi(abi as AbiEntry[]);
      } catch {
        // not an ABI file
      }
    };
    for (const p of paths) visit(p);
  }

  /** `name(types)` for calldata's selector, or the bare selector. */
  describeCall(input: string | undefined): string | undefined {
    if (!input || input.length < 10) return undefined;
    const selector = input.slice(0, 10).toLowerCase();
    return this.functions.get(selector) ?? selector;
  }
}
