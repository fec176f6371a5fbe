/**
 * The rpc-compat tests node-rpc does not pass, each with the reason (the README's "Conformance"
 * section says the same). The runner fails when a test outside this list fails, and when a test
 * on it passes.
 */
const REVERT_CODE = 'a revert is -32000 with the revert data (the node\'s error code for reverts, as the hardhat node answers); geth answers 3';
const BUILD_BLOCK = 'testing_buildBlockV1 is not served: it builds a payload for a consensus client without adding it to the chain';

export const KNOWN: Record<string, string> = {
  'eth_call/call-revert-abi-error': REVERT_CODE,
  'eth_call/call-revert-abi-panic': REVERT_CODE,
  'testing_buildBlockV1/build-block-empty-transactions': BUILD_BLOCK,
  'testing_buildBlockV1/build-block-from-mempool': BUILD_BLOCK,
  'testing_buildBlockV1/build-block-invalid-transaction': BUILD_BLOCK,
  'testing_buildBlockV1/build-block-with-transactions': BUILD_BLOCK,
};
