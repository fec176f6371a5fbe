/** Message signing with dev keys: eth_sign / personal_sign (EIP-191) and EIP-712. */
import { concatBytes, hashPersonalMessage } from '@ethereumjs/util';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hashTypedData, type TypedData } from './typedData.js';

/** 65-byte r ‖ s ‖ v signature with v = 27 + recovery. */
function signHash(hash: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const sig = secp256k1.Signature.fromBytes(secp256k1.sign(hash, privateKey, { prehash: false, format: 'recovered' }), 'recovered');
  return concatBytes(sig.toBytes('compact'), new Uint8Array([27 + (sig.recovery ?? 0)]));
}

export function signMessage(message: Uint8Array, privateKey: Uint8Array): Uint8Array {
  return signHash(hashPersonalMessage(message), privateKey);
}

export function signTypedData(data: TypedData, privateKey: Uint8Array): Uint8Array {
  return signHash(hashTypedData(data), privateKey);
}
