/**
 * In-process cost of Solidity stacks (not a test; figures go to stdout):
 *  - eth_call, successful and reverting, on a node without artifacts and on one with them, where
 *    the call's code has no artifact (the revert then costs one plain re-run);
 *  - a 10-frame revert (Deep.down(9)) explained: the whole re-run, and the decoding alone
 *    (locating every frame and writing the message) with the artifacts' indexes warm.
 *
 * node dist/test/bench/sourceStacks.js
 */
import { JsonRpcProvider, NonceManager, Wallet, ContractFactory, Interface } from 'ethers';
import { createAddressFromString, hexToBytes } from '@ethereumjs/util';
import { loadArtifacts } from '../../src/artifacts/load.js';
import { failureMessage } from '../../src/chain/exec/explain.js';
import { ExecutionError } from '../../src/chain/core/errors.js';
import { LATEST } from '../../src/chain/core/types.js';
import { KEYS, startTestNode, type TestNode } from '../support/node.js';
import { built, deployFixtures, LAYOUTS } from '../support/sourcemaps.js';

async function time(label: string, n: number, fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(50, n); i++) await fn();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn();
  const us = Number(process.hrtime.bigint() - t0) / 1000 / n;
  console.log(`${label.padEnd(64)} ${us.toFixed(1).padStart(8)} µs`);
  return us;
}

async function deployDeep(node: TestNode, layout: string): Promise<{ address: string; iface: Interface }> {
  const signer = new NonceManager(new Wallet(KEYS[2], new JsonRpcProvider(node.url, undefined, { staticNetwork: true })));
  const art = built(layout, 'Deep');
  const c = await (await new ContractFactory(art.abi, art.bytecode, signer).deploy()).waitForDeployment();
  return { address: await c.getAddress(), iface: new Interface(art.abi) };
}

const layout = 'foundry-opt';
const other = 'foundry-noopt';
const plain = await startTestNode();
const withArtifacts = await startTestNode({ artifacts: loadArtifacts([LAYOUTS[layout]!], () => undefined) });
const req = (d: { thrower: string; iface: { thrower: Interface } }, fn: string, args: unknown[]) => ({
  from: createAddressFromString('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'),
  to: createAddressFromString(d.thrower),
  data: hexToBytes(d.iface.thrower.encodeFunctionData(fn, args) as `0x${string}`),
});
const signerOf = (n: TestNode) => new NonceManager(new Wallet(KEYS[0], new JsonRpcProvider(n.url, undefined, { staticNetwork: true })));
const onPlain = await deployFixtures(layout, signerOf(plain));
const unknown = await deployFixtures(other, signerOf(withArtifacts));
const N = 2000;
console.log(`eth_call through DevNode.call, mean of ${N}`);
for (const round of [1, 2]) {
  console.log(`round ${round}`);
  await time('successful call, node without artifacts', N, () => plain.node.call(req(onPlain, 'checked', [9n]), LATEST));
  await time('successful call, node with artifacts', N, () => withArtifacts.node.call(req(unknown, 'checked', [9n]), LATEST));
  await time('reverting call, node without artifacts', N, () => plain.node.call(req(onPlain, 'requireString', [1n]), LATEST).catch(() => undefined));
  await time('reverting call in code without artifact, node with artifacts', N, () => withArtifacts.node.call(req(unknown, 'requireString', [1n]), LATEST).catch(() => undefined));
}

const deep = await deployDeep(withArtifacts, layout);
const deepReq = { from: createAddressFromString('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'), to: createAddressFromString(deep.address), data: hexToBytes(deep.iface.encodeFunctionData('down', [9n]) as `0x${string}`) };
let err: ExecutionError | undefined;
await withArtifacts.node.call(deepReq, LATEST).catch((e: unknown) => (err = e as ExecutionError));
const stack = err!.sourceStack!;
console.log(`\n10-frame revert: ${stack.frames.length} frames; ${err!.message.slice(0, 120)}…`);
await time('10-frame revert, eth_call with the explaining re-run', 200, () => withArtifacts.node.call(deepReq, LATEST).catch(() => undefined));
const plainDeep = await deployDeep(plain, layout);
await time('10-frame revert, eth_call on a node without artifacts', 200, () => plain.node.call({ ...deepReq, to: createAddressFromString(plainDeep.address) }, LATEST).catch(() => undefined));
const locator = withArtifacts.node.sources!;
const code = await withArtifacts.node.getCode(createAddressFromString(deep.address), LATEST);
const decode = () => {
  const src = locator.code(code, false)!;
  const frames = stack.frames.map((f) => ({ ...f, location: src.locate(f.pc) }));
  return failureMessage('execution reverted: bottom', { ...stack, frames }, locator);
};
await time('10-frame revert, decoding alone (locate 10 frames + message)', 5000, async () => decode());
await plain.close();
await withArtifacts.node.close();
await withArtifacts.close();
