/**
 * anvil_dealERC20 (aliases hardhat_dealERC20, anvil_setERC20Balance) and anvil_setERC20Allowance:
 * the balance / allowance slot of any ERC20 found by probing the slots its view reads, as anvil
 * does. Through ethers: an OpenZeppelin-layout token, the suite's Token (balances at slot 3), a
 * Vyper-layout token written in assembly (with a slot read before the balance that must not be
 * taken), a token behind a delegating proxy; the errors when there is no slot; anvil alongside.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AbiCoder, Contract, ContractFactory, JsonRpcProvider, keccak256, toBeHex, zeroPadValue, type Signer } from 'ethers';
import { startAnvil, type Anvil } from '../support/anvil.js';
import { ADDRS, artifact, startTestNode, type TestNode } from '../support/node.js';

const coder = AbiCoder.defaultAbiCoder();
const HOLDER = ADDRS[1];
const SPENDER = ADDRS[2];
const solidityEntry = (key: string, slot: number) => keccak256(coder.encode(['address', 'uint256'], [key, slot]));
const vyperEntry = (slot: number | string, key: string) => keccak256(coder.encode(['uint256', 'address'], [slot, key]));
const word = (n: bigint) => zeroPadValue(toBeHex(n), 32);

async function deploy(signer: Signer, name: string, args: unknown[] = []): Promise<Contract> {
  const a = artifact(name);
  const c = await new ContractFactory(a.abi, a.bytecode, signer).deploy(...args);
  await c.waitForDeployment();
  return c as Contract;
}

describe('anvil_dealERC20 / anvil_setERC20Allowance', () => {
  let n: TestNode;
  let provider: JsonRpcProvider;
  let signer: Signer;
  before(async () => {
    n = await startTestNode();
    provider = new JsonRpcProvider(n.url, undefined, { staticNetwork: true, cacheTimeout: -1 });
    signer = await provider.getSigner(0);
  });
  after(async () => {
    provider.destroy();
    await n.close();
  });

  test('OpenZeppelin layout: balance and allowance land in slots 0 and 1, and transfers spend them', async () => {
    const token = await deploy(signer, 'OzLayoutToken', [1000n]);
    const at = await token.getAddress();
    assert.equal(await provider.send('anvil_dealERC20', [HOLDER, at, '0x' + (10n ** 24n).toString(16)]), null);
    assert.equal(await token.balanceOf(HOLDER), 10n ** 24n);
    assert.equal(await provider.send('eth_getStorageAt', [at, solidityEntry(HOLDER, 0), 'latest']), word(10n ** 24n));
    assert.equal(await token.totalSupply(), 1000n);

    assert.equal(await provider.send('anvil_setERC20Allowance', [HOLDER, SPENDER, at, 500]), null);
    assert.equal(await token.allowance(HOLDER, SPENDER), 500n);
    const inner = keccak256(coder.encode(['address', 'uint256'], [HOLDER, 1]));
    assert.equal(await provider.send('eth_getStorageAt', [at, keccak256(coder.encode(['address', 'bytes32'], [SPENDER, inner])), 'latest']), word(500n));
    // The dealt balance and allowance are real: the spender moves 300 of the holder's tokens.
    const spender = await provider.getSigner(2);
    await (await (token.connect(spender) as Contract).transferFrom(HOLDER, ADDRS[0], 300n)).wait();
    assert.equal(await token.balanceOf(HOLDER), 10n ** 24n - 300n);
    assert.equal(await token.allowance(HOLDER, SPENDER), 200n);
    // Down to zero, under its aliases.
    await provider.send('hardhat_dealERC20', [HOLDER, at, '0x0']);
    assert.equal(await token.balanceOf(HOLDER), 0n);
    await provider.send('anvil_setERC20Balance', [HOLDER, at, 7]);
    assert.equal(await token.balanceOf(HOLDER), 7n);
  });

  test("the suite's Token: balances at slot 3 after name, symbol and totalSupply", async () => {
    const token = await deploy(signer, 'Token', ['T', 'T', 1n]);
    const at = await token.getAddress();
    await provider.send('anvil_dealERC20', [HOLDER, at, '0x64']);
    assert.equal(await token.balanceOf(HOLDER), 100n);
    assert.equal(await provider.send('eth_getStorageAt', [at, solidityEntry(HOLDER, 3), 'latest']), word(100n));
    await provider.send('anvil_setERC20Allowance', [HOLDER, SPENDER, at, '0x2a']);
    assert.equal(await token.allowance(HOLDER, SPENDER), 42n);
  });

  test('Vyper layout in assembly: keccak(slot . key), nested for allowances; a capping slot read first is not taken', async () => {
    const token = await deploy(signer, 'VyperLayoutToken');
    const at = await token.getAddress();
    await provider.send('anvil_dealERC20', [HOLDER, at, '0x3e8']);
    assert.equal(await token.balanceOf(HOLDER), 1000n);
    assert.equal(await provider.send('eth_getStorageAt', [at, vyperEntry(7, HOLDER), 'latest']), word(1000n));
    // Slot 2 caps the answer: overriding it with 10 makes balanceOf answer 10 for a holder of
    // 1000, so a search taking the first slot that answers the value would write slot 2.
    await provider.send('anvil_dealERC20', [HOLDER, at, '0xa']);
    assert.equal(await provider.send('eth_getStorageAt', [at, '0x2', 'latest']), word(0n));
    assert.equal(await provider.send('eth_getStorageAt', [at, vyperEntry(7, HOLDER), 'latest']), word(10n));
    assert.equal(await token.balanceOf(HOLDER), 10n);

    await provider.send('anvil_setERC20Allowance', [HOLDER, SPENDER, at, 77]);
    assert.equal(await token.allowance(HOLDER, SPENDER), 77n);
    assert.equal(await provider.send('eth_getStorageAt', [at, vyperEntry(vyperEntry(9, HOLDER), SPENDER), 'latest']), word(77n));
  });

  test("behind a delegating proxy: the proxy's storage is written, its implementation slot left alone", async () => {
    const impl = await deploy(signer, 'OzLayoutToken', [0n]);
    const proxy = await deploy(signer, 'LayoutProxy', [await impl.getAddress()]);
    const at = await proxy.getAddress();
    const token = new Contract(at, artifact('OzLayoutToken').abi, provider);
    const implSlot = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc';
    const implBefore = await provider.send('eth_getStorageAt', [at, implSlot, 'latest']);
    await provider.send('anvil_dealERC20', [HOLDER, at, 12345]);
    assert.equal(await token.balanceOf(HOLDER), 12345n);
    assert.equal(await provider.send('eth_getStorageAt', [at, implSlot, 'latest']), implBefore);
    assert.equal(await impl.balanceOf(HOLDER), 0n);
  });

  test('no slot: -32000 naming the call and the token; bad params: -32602', async () => {
    const fixed = await (await deploy(signer, 'NoStorageToken')).getAddress();
    const cases: Array<[string, unknown[], RegExp]> = [
      ['anvil_dealERC20', [HOLDER, fixed, 1], /^Unable to set ERC20 balance, no slot found: balanceOf\(0x70997970c51812dc3a010c7d01b50e0d17dc79c8\) on 0x[0-9a-f]{40} reads no storage$/],
      ['anvil_setERC20Allowance', [HOLDER, SPENDER, fixed, 1], /^Unable to set ERC20 allowance, no slot found: allowance\(0x70997970c51812dc3a010c7d01b50e0d17dc79c8, 0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc\) on 0x[0-9a-f]{40} reads no storage$/],
      ['anvil_dealERC20', [HOLDER, ADDRS[0], 1], /^Unable to set ERC20 balance, no slot found: .* on 0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266 has no code$/],
    ];
    const storageFixture = await (await deploy(signer, 'Storage')).getAddress();
    for (const [m, params, message] of cases) {
      const r = await n.raw(m, params);
      assert.equal(r.error?.code, -32000, JSON.stringify(r));
      assert.match(r.error!.message, message);
    }
    // A contract whose balanceOf does not exist reads nothing either: no slot.
    const noFn = await n.raw('anvil_dealERC20', [HOLDER, storageFixture, 1]);
    assert.equal(noFn.error?.code, -32000);
    for (const params of [[HOLDER, fixed], ['0x12', fixed, 1], [HOLDER, fixed, 'lots'], [HOLDER, fixed, '0x1' + '0'.repeat(64)]]) {
      const r = await n.raw('anvil_dealERC20', params);
      assert.equal(r.error?.code, -32602, JSON.stringify(params));
    }
  });
});

describe('anvil_dealERC20 alongside anvil', () => {
  let n: TestNode;
  let anvil: Anvil;
  before(async () => {
    [n, anvil] = await Promise.all([startTestNode(), startAnvil()]);
  });
  after(async () => {
    await n.close();
    await anvil.close();
  });

  test('the same parameter order writes the same slot on both nodes', async () => {
    for (const node of [n, anvil]) {
      const provider = new JsonRpcProvider(node.url, undefined, { staticNetwork: true, cacheTimeout: -1 });
      try {
        const token = await deploy(await provider.getSigner(0), 'OzLayoutToken', [5n]);
        const at = await token.getAddress();
        assert.equal(await provider.send('anvil_dealERC20', [HOLDER, at, '0x99']), null);
        assert.equal(await provider.send('anvil_setERC20Allowance', [HOLDER, SPENDER, at, '0x77']), null);
        assert.equal(await token.balanceOf(HOLDER), 0x99n, node.url);
        assert.equal(await token.allowance(HOLDER, SPENDER), 0x77n, node.url);
        assert.equal(await provider.send('eth_getStorageAt', [at, solidityEntry(HOLDER, 0), 'latest']), word(0x99n));
      } finally {
        provider.destroy();
      }
    }
  });
});
