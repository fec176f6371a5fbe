/** The step debugger's fixture (fixtures/sourcemaps/src/Vault.sol): Bank and a Teller calling it. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ContractFactory, Interface, type Signer } from 'ethers';
import { LAYOUTS, lineOf } from './sourcemaps.js';

function built(layout: string, name: string): { abi: any[]; bytecode: string } {
  const dir = LAYOUTS[layout]!;
  const json = JSON.parse(readFileSync(layout.startsWith('hardhat') ? join(dir, 'src', 'Vault.sol', `${name}.json`) : join(dir, 'Vault.sol', `${name}.json`), 'utf8'));
  return { abi: json.abi, bytecode: typeof json.bytecode === 'string' ? json.bytecode : json.bytecode.object };
}

export interface Vault {
  bank: string;
  teller: string;
  iface: { bank: Interface; teller: Interface };
}

export async function deployVault(layout: string, signer: Signer): Promise<Vault> {
  const b = built(layout, 'Bank');
  const bank = await (await new ContractFactory(b.abi, b.bytecode, signer).deploy()).waitForDeployment();
  const t = built(layout, 'Teller');
  const teller = await (await new ContractFactory(t.abi, t.bytecode, signer).deploy(await bank.getAddress())).waitForDeployment();
  return { bank: (await bank.getAddress()).toLowerCase(), teller: (await teller.getAddress()).toLowerCase(), iface: { bank: new Interface(b.abi), teller: new Interface(t.abi) } };
}

/** The line of src/Vault.sol holding `text` (its `nth` occurrence). */
export const vaultLine = (text: string, nth = 0): number => lineOf(text, nth, 'Vault.sol');
