/** The one method table: every namespace registered in one place. */
import type { DevNode } from '../../chain/node.js';
import { method, MethodTable } from '../registry.js';
import { ethMethods } from './eth.js';
import { netMethods } from './net.js';
import { web3Methods } from './web3.js';

export function createMethodTable(node: DevNode, version: string): MethodTable {
  const table = new MethodTable([...web3Methods(version), ...netMethods(node), ...ethMethods(node)]);
  /** Namespaces this node serves, as geth answers rpc_modules. */
  table.add(method('rpc_modules', [], () => table.modules()));
  return table;
}
