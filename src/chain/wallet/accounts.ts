/** Dev accounts derived from a BIP-39 mnemonic along a BIP-44 path. */
import { pbkdf2Sync } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { Address, hexToBytes, publicToAddress } from '@ethereumjs/util';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { DEFAULT_MNEMONIC } from '../core/config.js';
import { DEFAULT_KEYS, DEFAULT_PATH } from '../core/defaultKeys.js';

export interface DevAccount {
  readonly address: Address;
  readonly privateKey: Uint8Array;
}

const publicKeys = new WeakMap<DevAccount, Uint8Array>();

/**
 * The account's public key as ethereumjs keeps a recovered sender's (64 bytes, no 0x04 prefix),
 * derived once per account.
 */
export function publicKeyOf(account: DevAccount): Uint8Array {
  let key = publicKeys.get(account);
  if (key === undefined) {
    key = secp256k1.getPublicKey(account.privateKey, false).subarray(1);
    publicKeys.set(account, key);
  }
  return key;
}

/** `count` accounts of `mnemonic` along `path` (the index appended); the default mnemonic's first 20 come from a table. */
export function deriveAccounts(mnemonic: string, path: string, count: number): DevAccount[] {
  const known = mnemonic === DEFAULT_MNEMONIC && path === DEFAULT_PATH ? Math.min(count, DEFAULT_KEYS.length) : 0;
  const out = DEFAULT_KEYS.slice(0, known).map(([address, key]) => ({ address: new Address(hexToBytes(address as `0x${string}`)), privateKey: hexToBytes(`0x${key}`) }));
  return known === count ? out : out.concat(deriveKeys(mnemonic, path, known, count - known));
}

/** Accounts `from` … `from + count - 1` of `mnemonic` along `path`, derived (BIP-39 seed, BIP-32). */
export function deriveKeys(mnemonic: string, path: string, from: number, count: number): DevAccount[] {
  if (!validateMnemonic(mnemonic, wordlist)) throw new Error('invalid mnemonic');
  const root = HDKey.fromMasterSeed(mnemonicSeed(mnemonic));
  // Derive the common parent once; each account is then a single child step.
  const base = path.replace(/\/+$/, '');
  const parent = base === 'm' ? root : root.derive(base);
  const out: DevAccount[] = [];
  for (let i = from; i < from + count; i++) {
    const { privateKey, publicKey } = parent.deriveChild(i);
    if (!privateKey || !publicKey) throw new Error(`no key at ${base}/${i}`);
    out.push({ address: new Address(publicToAddress(publicKey, true)), privateKey });
  }
  return out;
}

/**
 * BIP-39's seed of `mnemonic` (no passphrase): PBKDF2-HMAC-SHA512, 2,048 rounds, salt "mnemonic",
 * both NFKD-normalized — Node's native PBKDF2, about 1 ms against 25 ms for the pure-JS one at boot.
 * test/chain/wallet.test.ts checks it against @scure/bip39's `mnemonicToSeedSync`.
 */
export function mnemonicSeed(mnemonic: string, passphrase = ''): Uint8Array {
  return pbkdf2Sync(mnemonic.normalize('NFKD'), `mnemonic${passphrase}`.normalize('NFKD'), 2048, 64, 'sha512');
}
