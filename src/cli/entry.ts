/**
 * The bundle's entry (dist/node.cjs, loaded by src/launch/load.ts): the command line for
 * bin/node-rpc.js and createNode for the package, one bundle and one code cache for both.
 */
export { runCli } from './main.js';
export { createNode } from '../lib/node.js';
