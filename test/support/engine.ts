/** What tests of the engine alone (src/chain/engine) share: a chain with no history, and addresses and slots by number. */
import { Address, hexToBytes, setLengthLeft } from '@ethereumjs/util';

/** The EVM's block history for an engine without blocks: any BLOCKHASH lookup fails. */
export const NO_HISTORY = {
  getBlock: async (): Promise<never> => {
    throw new Error('no history');
  },
  putBlock: async () => {},
  shallowCopy() {
    return NO_HISTORY;
  },
};

/** The address whose 20 bytes are `n`. */
export const address = (n: number) => new Address(hexToBytes(`0x${n.toString(16).padStart(40, '0')}`));

/** The 32-byte storage slot `n`. */
export const slot = (n: number) => setLengthLeft(new Uint8Array([n]), 32);
