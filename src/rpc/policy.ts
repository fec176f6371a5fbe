/**
 * What a shared node (`node-rpc dev --public`) refuses unless told otherwise: signing with the dev
 * accounts' keys and impersonation (`--unlock`), and the test controls that change the chain at
 * will (`--allow-cheats`). The service spec's node holds no sender key; a team's shared chain must
 * not hand its prefunded accounts, or its history, to whoever reaches the port.
 *
 * The rule is by name so that a method added later is locked by default: every `anvil_`,
 * `hardhat_` and `evm_` method is a cheat unless listed below as read-only. Refused methods answer
 * -32000 naming the flag; `eth_accounts` answers `[]` (the node offers no accounts).
 */
import { isJsTracer } from '../trace/index.js';
import { serverError } from './errors.js';
import { method, type MethodDef, type MethodTable } from './registry.js';

export type Lock = 'signing' | 'cheat';

/** Methods that sign with a dev account's key, or send as an account without its key. */
export const SIGNING = new Set([
  'eth_sendTransaction',
  'eth_sendTransactionSync',
  'eth_sendUnsignedTransaction',
  'eth_sign',
  'eth_signTransaction',
  'eth_signTypedData',
  'eth_signTypedData_v3',
  'eth_signTypedData_v4',
  'personal_sign',
  'anvil_impersonateAccount',
  'anvil_stopImpersonatingAccount',
  'anvil_autoImpersonateAccount',
  'hardhat_impersonateAccount',
  'hardhat_stopImpersonatingAccount',
  'hardhat_autoImpersonateAccount',
]);

/** Test-control namespaces' methods that only read: open on a shared node. */
export const READ_ONLY_CONTROLS = new Set(['anvil_nodeInfo', 'anvil_metadata', 'hardhat_metadata', 'anvil_getAutomine', 'hardhat_getAutomine', 'anvil_getIntervalMining', 'anvil_getBlobByHash', 'anvil_getBlobsByTransactionHash']);

const CONTROL_NAMESPACES = /^(anvil|hardhat|evm)_/;

/**
 * Namespaces whose methods read (or, for eth_sendRawTransaction, take a transaction the client
 * signed). A method of any other namespace must be classified here before it is served: the
 * policy test fails on one that is neither signing, a control, nor in these namespaces.
 */
export const OPEN_NAMESPACES = new Set(['eth', 'net', 'web3', 'debug', 'trace', 'ots', 'txpool', 'rpc', 'erigon']);

/** How `name` is locked on a shared node; undefined when it is open. */
export function lockOf(name: string): Lock | undefined {
  if (SIGNING.has(name)) return 'signing';
  if (CONTROL_NAMESPACES.test(name) && !READ_ONLY_CONTROLS.has(name)) return 'cheat';
  return undefined;
}

export interface SharedPolicy {
  /** --unlock: signing with the dev accounts and impersonation allowed. */
  unlock: boolean;
  /** --allow-cheats: test controls allowed. */
  allowCheats: boolean;
  /** --allow-js-tracers: JavaScript tracers allowed in debug_trace*. */
  allowJsTracers?: boolean;
}

/** debug_trace* methods and which of their params is the trace config. */
const TRACE_CONFIG_PARAM: Record<string, number> = {
  debug_traceTransaction: 1,
  debug_traceCall: 2,
  debug_traceBlockByNumber: 1,
  debug_traceBlockByHash: 1,
};

/** Whether a raw trace config asks for a JavaScript tracer. */
function asksForJs(raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null) return false;
  const key = Object.keys(raw).find((k) => k.toLowerCase() === 'tracer');
  const tracer = key === undefined ? undefined : (raw as Record<string, unknown>)[key];
  return typeof tracer === 'string' && isJsTracer(tracer);
}

/** Lock `table` down for a shared node: refused methods answer -32000 naming the flag that opens them. */
export function lockDown(table: MethodTable, policy: SharedPolicy): void {
  table.override((name, def): MethodDef | undefined => {
    if (!policy.unlock && (name === 'eth_accounts' || name === 'eth_requestAccounts')) return method(name, [], () => []);
    const lock = lockOf(name);
    if (lock === 'signing' && !policy.unlock) return refused(def, `${name} is disabled on a shared node (it holds no sender key): sign transactions yourself and send them with eth_sendRawTransaction, or start the node with --unlock`);
    if (lock === 'cheat' && !policy.allowCheats) return refused(def, `${name} is disabled on a shared node (test controls change the chain for everyone); start the node with --allow-cheats to allow them`);
    const at = TRACE_CONFIG_PARAM[name];
    if (at !== undefined && policy.allowJsTracers !== true) {
      return {
        ...def,
        call: (ctx, params) => {
          if (Array.isArray(params) && asksForJs(params[at])) {
            throw serverError('JavaScript tracers are disabled on a shared node (a tracer runs code on the node); start the node with --allow-js-tracers to allow them');
          }
          return def.call(ctx, params);
        },
      };
    }
    return undefined;
  });
}

function refused(def: MethodDef, message: string): MethodDef {
  return { ...def, call: () => { throw serverError(message); } };
}
