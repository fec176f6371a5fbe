/**
 * The rpc-compat tests node-rpc does not pass, each with the reason (the README's "Conformance"
 * section says the same). The runner fails when a test outside this list fails, and when a test
 * on it passes.
 */
const TOTAL_DIFFICULTY = "node-rpc's blocks carry totalDifficulty, as anvil's and the hardhat node's do; geth no longer gives the field";
const REVERT_CODE = 'a revert is -32000 with the revert data (the node\'s error code for reverts, as the hardhat node answers); geth answers 3';
const BUILD_BLOCK = 'testing_buildBlockV1 is not served: it builds a payload for a consensus client without adding it to the chain';

export const KNOWN: Record<string, string> = {
  'eth_getBlockByHash/get-block-by-hash': TOTAL_DIFFICULTY,
  'eth_getBlockByNumber/get-block-cancun-fork': TOTAL_DIFFICULTY,
  'eth_getBlockByNumber/get-block-london-fork': TOTAL_DIFFICULTY,
  'eth_getBlockByNumber/get-block-merge-fork': TOTAL_DIFFICULTY,
  'eth_getBlockByNumber/get-block-prague-fork': TOTAL_DIFFICULTY,
  'eth_getBlockByNumber/get-block-shanghai-fork': TOTAL_DIFFICULTY,
  'eth_getBlockByNumber/get-finalized': TOTAL_DIFFICULTY,
  'eth_getBlockByNumber/get-genesis': TOTAL_DIFFICULTY,
  'eth_getBlockByNumber/get-latest': TOTAL_DIFFICULTY,
  'eth_getBlockByNumber/get-safe': TOTAL_DIFFICULTY,
  'eth_call/call-revert-abi-error': REVERT_CODE,
  'eth_call/call-revert-abi-panic': REVERT_CODE,
  'testing_buildBlockV1/build-block-empty-transactions': BUILD_BLOCK,
  'testing_buildBlockV1/build-block-from-mempool': BUILD_BLOCK,
  'testing_buildBlockV1/build-block-invalid-transaction': BUILD_BLOCK,
  'testing_buildBlockV1/build-block-with-transactions': BUILD_BLOCK,
};
