// A Hardhat 2 project as users have them, pointed at a running node-rpc (NODE_RPC_URL).
// Compiles with the solc-js package the repository already has: no compiler download.
require('@nomicfoundation/hardhat-ethers');
require('@nomicfoundation/hardhat-chai-matchers');
const { subtask } = require('hardhat/config');
const { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } = require('hardhat/builtin-tasks/task-names');
const solc = require('solc');

const solcVersion = require('solc/package.json').version;

subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async (args, hre, runSuper) => {
  if (args.solcVersion !== solcVersion) return runSuper();
  return { compilerPath: require.resolve('solc/soljson.js'), isSolcJs: true, version: solcVersion, longVersion: solc.version() };
});

module.exports = {
  solidity: { version: solcVersion, settings: { evmVersion: 'osaka', optimizer: { enabled: true, runs: 200 } } },
  defaultNetwork: 'noderpc',
  networks: {
    noderpc: { url: process.env.NODE_RPC_URL ?? 'http://127.0.0.1:8545', timeout: 60_000 },
  },
  mocha: { timeout: 60_000 },
};
