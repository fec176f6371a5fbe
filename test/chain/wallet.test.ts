/** The dev accounts' seed (node:crypto PBKDF2) against the BIP-39 library's, and the well-known accounts. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { mnemonic as mnemonicFlag } from '../../src/lib/flags.js';
import { bytesToHex, toChecksumAddress } from '@ethereumjs/util';
import { deriveAccounts, deriveKeys, mnemonicSeed } from '../../src/chain/wallet/accounts.js';
import { DEFAULT_KEYS, DEFAULT_PATH, defaultChecksum } from '../../src/chain/core/defaultKeys.js';
import { DEFAULT_MNEMONIC } from '../../src/chain/core/config.js';
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

test('the default mnemonic\'s key table is what derivation gives, and more accounts continue it', () => {
  const derived = deriveKeys(DEFAULT_MNEMONIC, DEFAULT_PATH, 0, DEFAULT_KEYS.length + 2);
  assert.deepEqual(
    DEFAULT_KEYS.map(([address, key]) => [address, `0x${key}`]),
    derived.slice(0, DEFAULT_KEYS.length).map((a) => [toChecksumAddress(a.address.toString()), bytesToHex(a.privateKey)]),
  );
  const many = deriveAccounts(DEFAULT_MNEMONIC, DEFAULT_PATH, DEFAULT_KEYS.length + 2);
  assert.deepEqual(many.map((a) => bytesToHex(a.privateKey)), derived.map((a) => bytesToHex(a.privateKey)));
  // Another path or mnemonic is derived, not read from the table.
  assert.notEqual(deriveAccounts(DEFAULT_MNEMONIC, "m/44'/60'/1'/0/", 1)[0]!.address.toString(), DEFAULT_KEYS[0]![0].toLowerCase());
  // The table's addresses are what the accounts read as, and their checksummed form is looked up.
  assert.deepEqual(many.slice(0, DEFAULT_KEYS.length).map((a) => a.address.toString()), DEFAULT_KEYS.map(([address]) => address.toLowerCase()));
  for (const [address] of DEFAULT_KEYS) assert.equal(defaultChecksum(address.toLowerCase()), address);
  assert.equal(defaultChecksum(derived[DEFAULT_KEYS.length]!.address.toString()), undefined);
  assert.throws(() => deriveAccounts('test test test', DEFAULT_PATH, 1), /invalid mnemonic/);
});

test('the default mnemonic, accepted by --mnemonic without a check, is a valid BIP-39 English one; others are checked', () => {
  assert.ok(validateMnemonic(DEFAULT_MNEMONIC, wordlist));
  assert.equal(mnemonicFlag(`  ${DEFAULT_MNEMONIC.replace(/ /g, '  ')} `), DEFAULT_MNEMONIC);
  assert.equal(mnemonicFlag('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'), 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');
  assert.throws(() => mnemonicFlag('test test test test test test test test test test test test'), /not a valid BIP-39/);
});

test('a dev account\'s public key (what eth_sendTransaction gives the transactions it signs) is the one its address and signatures come from', async () => {
  const { publicKeyOf } = await import('../../src/chain/wallet/accounts.js');
  const { publicToAddress, ecrecover, hexToBytes, bigIntToBytes } = await import('@ethereumjs/util');
  const { createFeeMarket1559Tx } = await import('@ethereumjs/tx');
  const accounts = [...deriveAccounts(DEFAULT_MNEMONIC, DEFAULT_PATH, DEFAULT_KEYS.length + 1), ...deriveKeys('legal winner thank year wave sausage worth useful legal winner thank yellow', DEFAULT_PATH, 0, 2)];
  for (const a of accounts) {
    const pub = publicKeyOf(a);
    assert.equal(pub.length, 64);
    assert.equal(bytesToHex(publicToAddress(pub)), a.address.toString(), 'its address');
    assert.equal(publicKeyOf(a), pub, 'derived once');
    const tx = createFeeMarket1559Tx({ chainId: 1n, nonce: 3n, maxFeePerGas: 10n ** 10n, gasLimit: 21_000n, to: hexToBytes('0x00000000000000000000000000000000000000f1') }).sign(a.privateKey);
    const recovered = ecrecover(tx.getMessageToVerifySignature(), tx.v!, bigIntToBytes(tx.r!), bigIntToBytes(tx.s!));
    assert.equal(bytesToHex(recovered), bytesToHex(pub), 'what a signature of its recovers to');
  }
});
