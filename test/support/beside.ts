/** Differential suites: a node-rpc test node and an anvil beside it. */
import { startAnvil, type Anvil } from './anvil.js';
import { startTestNode, type TestNode } from './node.js';

/** A node-rpc test node and an anvil beside it, for a differential suite: started together. */
export async function startBeside(): Promise<{ ours: TestNode; anvil: Anvil }> {
  const [ours, anvil] = await Promise.all([startTestNode(), startAnvil()]);
  return { ours, anvil };
}

/** Close what startBeside started (either may be missing when a start failed). */
export async function closeBeside(ours: TestNode | undefined, anvil: Anvil | undefined): Promise<void> {
  await ours?.close();
  await anvil?.close();
}
