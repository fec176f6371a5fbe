/** The one method table: every namespace registered in one place. */
import type { DevNode } from '../../chain/node.js';
import { withForkHistory } from '../forkHistory.js';
import { method, MethodTable } from '../registry.js';
import { debugMethods } from './debug.js';
import { devMethods } from './dev.js';
import { ethMethods } from './eth.js';
import { filterMethods } from './filters.js';
import { netMethods } from './net.js';
import { otsMethods } from './ots.js';
import { simulateMethods } from './simulate.js';
import { subscriptionMethods } from './subscriptions.js';
import { traceMethods } from './trace.js';
import { txpoolMethods } from './txpool.js';
import { clientVersion, web3Methods } from './web3.js';

export function createMethodTable(node: DevNode, version: string, client = clientVersion(version)): MethodTable {
  const defs = [...web3Methods(version, client), ...netMethods(node), ...ethMethods(node), ...simulateMethods(node), ...filterMethods(node), ...subscriptionMethods(node), ...txpoolMethods(node), ...debugMethods(node), ...traceMethods(node), ...otsMethods(node), ...devMethods(node, version, client)];
  // On a forked chain, history at or below the fork block is the upstream's.
  const table = new MethodTable(withForkHistory(node, defs));
  /** Namespaces this node serves, as geth answers rpc_modules. */
  table.add(method('rpc_modules', [], () => table.modules()));
  return table;
}
