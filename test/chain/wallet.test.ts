/** The dev accounts' seed (node:crypto PBKDF2) against the BIP-39 library's, and the well-known accounts. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mnemonicToSeedSync } from '@scure/bip39';
import { bytesToHex } from '@ethereumjs/util';
import { deriveAccounts, mnemonicSeed } from '../../src/chain/wallet/accounts.js';
import { ADDRS, KEYS } from '../support/node.js';

test('the mnemonic seed is BIP-39\'s, with and without a passphrase, NFKD-normalized', () => {
  const mnemonics = [
    'test test test test test test test test test test test junk',
    'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    'legal winner thank year wave sausage worth useful legal winner thank yellow',
  ];
  for (const m of mnemonics) {
    for (const pass of ['', 'TREZOR', 'pässwörd']) {
      assert.equal(bytesToHex(mnemonicSeed(m, pass)), bytesToHex(mnemonicToSeedSync(m, pass)), `${m} / ${pass}`);
    }
  }
});

test('the default mnemonic gives the well-known accounts', () => {
  const accounts = deriveAccounts('test test test test test test test test test test test junk', "m/44'/60'/0'/0/", 3);
  assert.deepEqual(accounts.map((a) => a.address.toString()), ADDRS.map((a) => a.toLowerCase()));
  assert.deepEqual(accounts.map((a) => bytesToHex(a.privateKey)), [...KEYS]);
});
