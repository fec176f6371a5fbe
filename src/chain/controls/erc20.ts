/**
 * anvil_dealERC20 / anvil_setERC20Allowance: set a token balance or allowance of any ERC20 by
 * finding the storage slot that holds it, as anvil does, without knowing the layout: the slots
 * the `balanceOf` (`allowance`) call reads, from an access list of that call, are tried one by
 * one: a call with that slot overridden to the wanted value must answer the wanted value. The
 * first slot that does is written. Where anvil takes the first slot whose override answers the
 * value, here the answer must also follow a second probe, the value with its top bit flipped: a
 * slot that only caps or leaves the answer (a fee threshold read before the balance, a deal of the
 * current balance) would answer the value by coincidence and be overwritten.
 */
import { bigIntToBytes, bytesToBigInt, createZeroAddress, hexToBytes, setLengthLeft, type Address } from '@ethereumjs/util';
import { ChainError } from '../core/errors.js';
import { asClient, askingClient } from '../core/lock.js';
import type { AccessListResult } from '../exec/call.js';
import { LATEST, type AccountOverride, type BlockRef, type StateOverrides, type TxRequest } from '../core/types.js';
import { setStorageAt, type LiveState } from './cheats.js';

/** What finding and writing a token's slot needs: calls, access lists and code at a block, and the live state. */
export interface Erc20Host extends LiveState {
  /** eth_call with state overrides. */
  call(req: TxRequest, ref: BlockRef, overrides?: StateOverrides): Promise<Uint8Array>;
  /** The storage slots a call reads. */
  createAccessList(req: TxRequest, ref: BlockRef): Promise<AccessListResult>;
  /** Code of an account at a block. */
  getCode(address: Address, ref: BlockRef): Promise<Uint8Array>;
}

const BALANCE_OF = hexToBytes('0x70a08231'); // balanceOf(address)
const ALLOWANCE = hexToBytes('0xdd62ed3e'); // allowance(address,address)
const MAX_UINT256 = (1n << 256n) - 1n;

const word = (n: bigint): Uint8Array => setLengthLeft(bigIntToBytes(n), 32);
const addressWord = (a: Address): Uint8Array => setLengthLeft(a.bytes, 32);
const calldata = (selector: Uint8Array, args: Address[]): Uint8Array => Buffer.concat([selector, ...args.map(addressWord)]);

/** anvil_dealERC20(account, token, amount): `token.balanceOf(account)` becomes `amount`. */
export async function dealErc20(node: Erc20Host, account: Address, token: Address, amount: bigint): Promise<void> {
  const client = askingClient();
  const input = calldata(BALANCE_OF, [account]);
  const slot = await findSlot(node, token, input, amount, 'balance', `balanceOf(${account.toString()})`);
  await asClient(client, () => setStorageAt(node, token, slot, word(amount)));
}

/** anvil_setERC20Allowance(owner, spender, token, amount): `token.allowance(owner, spender)` becomes `amount`. */
export async function setErc20Allowance(node: Erc20Host, owner: Address, spender: Address, token: Address, amount: bigint): Promise<void> {
  const client = askingClient();
  const input = calldata(ALLOWANCE, [owner, spender]);
  const slot = await findSlot(node, token, input, amount, 'allowance', `allowance(${owner.toString()}, ${spender.toString()})`);
  await asClient(client, () => setStorageAt(node, token, slot, word(amount)));
}

/** The answer of `data` on `token` as a uint256 (undefined when it reverts or is not one word). */
async function read(node: Erc20Host, token: Address, data: Uint8Array, overrides?: Array<[Address, AccountOverride]>): Promise<bigint | undefined> {
  try {
    const out = await node.call({ from: createZeroAddress(), to: token, data }, LATEST, overrides);
    return out.length === 32 ? bytesToBigInt(out) : undefined;
  } catch (err) {
    if (err instanceof ChainError) return undefined;
    throw err;
  }
}

async function findSlot(node: Erc20Host, token: Address, data: Uint8Array, amount: bigint, what: string, call: string): Promise<Uint8Array> {
  if (amount > MAX_UINT256) throw new ChainError(`invalid amount: more than 256 bits`, undefined, -32602);
  const fail = (why: string) => new ChainError(`Unable to set ERC20 ${what}, no slot found: ${call} on ${token.toString()} ${why}`);
  const code = await node.getCode(token, LATEST);
  if (code.length === 0) throw fail('has no code');
  const { accessList } = await node.createAccessList({ from: createZeroAddress(), to: token, data }, LATEST);
  const mine = token.toString();
  const slots = accessList.filter((e) => e.address.toLowerCase() === mine).flatMap((e) => e.storageKeys);
  if (slots.length === 0) throw fail('reads no storage');
  const other = amount ^ (1n << 255n);
  const answersWith = async (slot: Uint8Array, value: bigint) => (await read(node, token, data, [[token, { stateDiff: [[slot, word(value)]] }]])) === value;
  for (const key of slots) {
    const slot = hexToBytes(key as `0x${string}`);
    if ((await answersWith(slot, amount)) && (await answersWith(slot, other))) return slot;
  }
  throw fail(`reads ${slots.length} storage slot${slots.length === 1 ? '' : 's'} (${slots.join(', ')}), none of which alone sets the answer`);
}
