/**
 * The deterministic CREATE2 deployer ("Arachnid's deployer"): `to` it with `salt ‖ initcode` as
 * calldata and it CREATE2s the initcode with that salt, returning the 20-byte address. Foundry's
 * `new C{salt: s}()` in a broadcast script goes through it, so anvil puts it in every fresh
 * genesis (not in a fork: there it is the upstream's, deployed on most chains).
 */
import { createAddressFromString, hexToBytes } from '@ethereumjs/util';

export const CREATE2_DEPLOYER = createAddressFromString('0x4e59b44847b379578588920ca78fbf26c0b4956c');

/** Its runtime code, byte for byte what anvil and the public chains hold. */
export const CREATE2_DEPLOYER_CODE = hexToBytes(
  '0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3',
);
