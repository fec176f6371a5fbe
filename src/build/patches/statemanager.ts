/** Speed patches to @ethereumjs/statemanager: the state caches every SLOAD and BALANCE looks in. */
import type { Patch } from '../patchDeps.js';

const CACHE = '@ethereumjs/statemanager/dist/esm/cache';

export const STATEMANAGER_PATCHES: Patch[] = [
  {
    id: 'statemanager-cache-address-hex-memo',
    file: `${CACHE}/account.js`,
    why:
      'The account cache look-up converted the address to hex on every read (every BALANCE, and every ' +
      'SLOAD through the fork state); the key now comes from the memo of util-key-hex-memo.',
    edits: [
      {
        find: `import { bytesToUnprefixedHex } from '@ethereumjs/util';`,
        replace: `import { addressBytesToHex, bytesToUnprefixedHex } from '@ethereumjs/util';`,
      },
      {
        find: `    get(address) {
        // Using deprecated bytesToUnprefixedHex for performance: used as Map keys for cache lookups.
        const addressHex = bytesToUnprefixedHex(address.bytes);`,
        replace: `    get(address) {
        const addressHex = addressBytesToHex(address.bytes);`,
      },
    ],
  },
  {
    id: 'statemanager-storage-key-hex-memo',
    file: `${CACHE}/storage.js`,
    why:
      'The storage cache look-up converted the address and the slot to hex on every SLOAD; the keys ' +
      'now come from the memos of util-key-hex-memo.',
    edits: [
      {
        find: `import { EthereumJSErrorWithoutCode, bytesToUnprefixedHex, hexToBytes } from '@ethereumjs/util';`,
        replace: `import { EthereumJSErrorWithoutCode, addressBytesToHex, bytesToUnprefixedHex, hexToBytes, slotBytesToHex } from '@ethereumjs/util';`,
      },
      {
        find: `    get(address, key) {
        const addressHex = bytesToUnprefixedHex(address.bytes);
        const keyHex = bytesToUnprefixedHex(key);`,
        replace: `    get(address, key) {
        const addressHex = addressBytesToHex(address.bytes);
        const keyHex = slotBytesToHex(key);`,
      },
    ],
  },
];
