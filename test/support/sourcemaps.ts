/** The source-map fixtures (fixtures/sourcemaps): their four build layouts, and deploying them linked. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ContractFactory, Interface, type Signer } from 'ethers';

export const SOURCEMAPS = fileURLToPath(new URL('../../../fixtures/sourcemaps', import.meta.url));
export const LAYOUTS: Record<string, string> = {
  'hardhat-opt': join(SOURCEMAPS, 'hardhat-opt', 'artifacts'),
  'hardhat-noopt': join(SOURCEMAPS, 'hardhat-noopt', 'artifacts'),
  'foundry-opt': join(SOURCEMAPS, 'out-opt'),
  'foundry-noopt': join(SOURCEMAPS, 'out-noopt'),
};

/** The line of src/Thrower.sol (1-based) holding `text` (its `nth` occurrence, from 0). */
export function lineOf(text: string, nth = 0, file = 'Thrower.sol'): number {
  const lines = readFileSync(join(SOURCEMAPS, 'src', file), 'utf8').split('\n');
  const i = lines.map((l, n) => (l.includes(text) ? n : -1)).filter((n) => n >= 0)[nth] ?? -1;
  if (i < 0) throw new Error(`no line with ${text}`);
  return i + 1;
}

export interface Built {
  abi: any[];
  bytecode: string;
}

export function built(layout: string, name: string): Built {
  const dir = LAYOUTS[layout]!;
  const file = name === 'Log' ? 'Log.sol' : 'Thrower.sol';
  const json = JSON.parse(readFileSync(layout.startsWith('hardhat') ? join(dir, 'src', file, `${name}.json`) : join(dir, file, `${name}.json`), 'utf8'));
  return { abi: json.abi, bytecode: typeof json.bytecode === 'string' ? json.bytecode : json.bytecode.object };
}

export interface Deployed {
  thrower: string;
  caller: string;
  checks: string;
  iface: { thrower: Interface; caller: Interface; failing: Interface };
  /** Init code of `Failing(x)`. */
  failing(x: bigint): string;
}

/** Deploy Checks, Thrower(100) linked to it, and Caller(thrower) from `signer`. */
export async function deployFixtures(layout: string, signer: Signer): Promise<Deployed> {
  const checksArt = built(layout, 'Checks');
  const checks = await (await new ContractFactory(checksArt.abi, checksArt.bytecode, signer).deploy()).waitForDeployment();
  const checksAddr = (await checks.getAddress()).toLowerCase();
  const throwerArt = built(layout, 'Thrower');
  const linked = throwerArt.bytecode.replace(/__\$[0-9a-f]{34}\$__/g, checksAddr.slice(2));
  const thrower = await (await new ContractFactory(throwerArt.abi, linked, signer).deploy(100n)).waitForDeployment();
  const callerArt = built(layout, 'Caller');
  const caller = await (await new ContractFactory(callerArt.abi, callerArt.bytecode, signer).deploy(await thrower.getAddress())).waitForDeployment();
  const failingArt = built(layout, 'Failing');
  const failingIface = new Interface(failingArt.abi);
  return {
    thrower: await thrower.getAddress(),
    caller: await caller.getAddress(),
    checks: checksAddr,
    iface: { thrower: new Interface(throwerArt.abi), caller: new Interface(callerArt.abi), failing: failingIface },
    failing: (x) => failingArt.bytecode + failingIface.encodeDeploy([x]).slice(2),
  };
}
