/**
 * The one method table: every namespace registered in one place. The one place in src/rpc that
 * knows the node: each group is handed it as the capabilities (chain/api.ts) it uses.
 */
import type { StateFiles } from '../../chain/api.js';
import { applyState, dumpStateText, parseState } from '../../chain/controls/stateFile.js';
import { askingClient } from '../../chain/core/lock.js';
import type { DevNode } from '../../chain/node.js';
import { withForkHistory } from '../forkHistory.js';
import { method, MethodTable } from '../registry.js';
import { blobMethods } from './blobs.js';
import { debugMethods } from './debug.js';
import { adminMethods } from './admin.js';
import { devMethods } from './dev.js';
import { ethMethods } from './eth.js';
import { filterMethods } from './filters.js';
import { miningMethods } from './mining.js';
import { netMethods } from './net.js';
import { otsMethods } from './ots.js';
import { simulateMethods } from './simulate.js';
import { stateFileMethods } from './stateFiles.js';
import { subscriptionMethods } from './subscriptions.js';
import { traceMethods } from './trace.js';
import { txpoolMethods } from './txpool.js';
import { clientVersion, web3Methods } from './web3.js';

/** State files are functions over the whole node (chain/controls/stateFile.ts), handed out as one capability. */
function stateFiles(node: DevNode): StateFiles {
  return {
    dumpState: (generator) => dumpStateText(node, generator),
    loadState: async (text) => {
      const client = askingClient();
      await applyState(node, await parseState(node, text), client);
    },
  };
}

export function createMethodTable(node: DevNode, version: string, client = clientVersion(version)): MethodTable {
  const defs = [
    ...web3Methods(version, client),
    ...netMethods(node),
    ...ethMethods(node),
    ...simulateMethods(node),
    ...filterMethods(node),
    ...subscriptionMethods(node),
    ...txpoolMethods(node),
    ...debugMethods(node),
    ...traceMethods(node),
    ...otsMethods(node),
    ...miningMethods(node),
    ...devMethods(node),
    ...blobMethods(node),
    ...stateFileMethods(stateFiles(node), version),
    ...adminMethods(node, client),
  ];
  // On a forked chain, history at or below the fork block is the upstream's.
  const table = new MethodTable(withForkHistory(node, defs));
  /** Namespaces this node serves, as geth answers rpc_modules. */
  table.add(method('rpc_modules', [], () => table.modules()));
  return table;
}
