/** Structured param codecs shared by several namespaces: transaction requests and state overrides. */
import type { AccountOverride, StateOverrides, TxRequest } from '../chain/core/types.js';
import { address, arrayOf, bytesN, data, hash32, optional, quantity, record, struct, uint, uint64, type Codec } from './codecs.js';
import { invalidParams } from './errors.js';

const accessListEntry = struct({ address, storageKeys: optional(arrayOf(hash32), []) }, 'access list entry');

const authorization = struct(
  { chainId: quantity, address, nonce: uint64, yParity: quantity, r: quantity, s: quantity },
  'authorization',
);

const txArgs = struct(
  {
    from: optional(address),
    to: optional(address),
    gas: optional(uint64),
    gasPrice: optional(quantity),
    maxFeePerGas: optional(quantity),
    maxPriorityFeePerGas: optional(quantity),
    value: optional(quantity),
    nonce: optional(uint64),
    data: optional(data),
    input: optional(data),
    type: optional(uint),
    chainId: optional(quantity),
    accessList: optional(arrayOf(accessListEntry)),
    authorizationList: optional(arrayOf(authorization)),
    maxFeePerBlobGas: optional(quantity),
    blobVersionedHashes: optional(arrayOf(hash32)),
    blobs: optional(arrayOf(data)),
  },
  'transaction object',
);

/** Transaction types a request may name. */
const KNOWN_TYPES = new Set([0, 1, 2, 3, 4]);

/**
 * geth's TransactionArgs: `data` and `input` are synonyms (must agree when both are given). An
 * unknown `type` is refused where the request becomes a transaction (`sending`), and dropped where
 * it only runs as a call, as geth, anvil and the hardhat node ignore it there.
 */
function txRequestCodec(sending: boolean): Codec<TxRequest> {
  return {
    type: 'transaction object',
    parse(value, where) {
      const a = txArgs.parse(value, where);
      if (a.data && a.input && Buffer.compare(Buffer.from(a.data), Buffer.from(a.input)) !== 0) {
        throw invalidParams(`invalid argument ${where}: both "data" and "input" are set and not equal. Please use "input" to pass transaction call data`);
      }
      if (a.gasPrice !== undefined && (a.maxFeePerGas !== undefined || a.maxPriorityFeePerGas !== undefined)) {
        throw invalidParams(`invalid argument ${where}: both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified`);
      }
      if (a.type !== undefined && !KNOWN_TYPES.has(a.type)) {
        if (sending) throw invalidParams(`invalid argument ${where}.type: transaction type ${a.type} not supported`);
      }
      // Written out field by field: one object of one shape, where a rest and a spread of the
      // sixteen fields cost more than the rest of the parse.
      return {
        from: a.from,
        to: a.to,
        gas: a.gas,
        gasPrice: a.gasPrice,
        maxFeePerGas: a.maxFeePerGas,
        maxPriorityFeePerGas: a.maxPriorityFeePerGas,
        value: a.value,
        nonce: a.nonce,
        type: a.type !== undefined && KNOWN_TYPES.has(a.type) ? a.type : undefined,
        chainId: a.chainId,
        accessList: a.accessList,
        authorizationList: a.authorizationList,
        maxFeePerBlobGas: a.maxFeePerBlobGas,
        blobVersionedHashes: a.blobVersionedHashes,
        blobs: a.blobs,
        data: a.input ?? a.data,
      };
    },
  };
}

/** A request that becomes a transaction (eth_sendTransaction and the like): an unknown `type` is -32602. */
export const txRequest = txRequestCodec(true);

/** A request run as a call (eth_call, eth_estimateGas, traces of calls, eth_simulateV1): an unknown `type` is ignored. */
export const callRequest = txRequestCodec(false);

const slotMap = record(hash32, hash32);

const accountOverride: Codec<AccountOverride> = struct(
  {
    balance: optional(quantity),
    nonce: optional(uint64),
    code: optional(data),
    state: optional(slotMap),
    stateDiff: optional(slotMap),
    movePrecompileToAddress: optional(address),
  },
  'account override',
) as Codec<AccountOverride>;

export const stateOverrides: Codec<StateOverrides> = {
  type: 'state override',
  optional: true,
  parse(value, where) {
    if (value === undefined || value === null) return undefined as unknown as StateOverrides;
    const entries = record(address, accountOverride).parse(value, where);
    for (const [a, o] of entries) {
      if (o.state && o.stateDiff) throw invalidParams(`invalid argument ${where}: account ${a.toString()} has both 'state' and 'stateDiff'`);
    }
    return entries;
  },
};

export const bytes32 = bytesN(32, 'hash');
