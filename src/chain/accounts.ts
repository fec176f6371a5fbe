/** Dev accounts derived from a BIP-39 mnemonic along a BIP-44 path. */
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { Address, privateToAddress } from '@ethereumjs/util';

export interface DevAccount {
  readonly address: Address;
  readonly privateKey: Uint8Array;
}

export function deriveAccounts(mnemonic: string, path: string, count: number): DevAccount[] {
  if (!validateMnemonic(mnemonic, wordlist)) throw new Error('invalid mnemonic');
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic));
  const base = path.endsWith('/') ? path : path + '/';
  const out: DevAccount[] = [];
  for (let i = 0; i < count; i++) {
    const key = root.derive(base + i).privateKey;
    if (!key) throw new Error(`no private key at ${base}${i}`);
    out.push({ address: new Address(privateToAddress(key)), privateKey: key });
  }
  return out;
}
