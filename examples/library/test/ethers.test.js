// One chain for this file: ethers talks to it through its BrowserProvider, as it would to a wallet.
import assert from 'node:assert/strict';
import { createNode } from 'node-rpc';
import { BrowserProvider, ContractFactory, parseEther } from 'ethers';
import { storage } from '../storage.js';

describe("ethers' BrowserProvider over node.provider", () => {
  let node, provider, signer, contract;

  before(async () => {
    node = await createNode({ accounts: 3 });
    provider = new BrowserProvider(node.provider);
    signer = await provider.getSigner(0);
    contract = await new ContractFactory(storage.abi, storage.bytecode, signer).deploy();
    await contract.waitForDeployment();
  });
  after(() => node.close());

  it('a transfer between dev accounts', async () => {
    const to = node.accounts[1].address;
    const tx = await signer.sendTransaction({ to, value: parseEther('1.5') });
    const receipt = await tx.wait();
    // At the blocks before and after the transfer (ethers keeps an identical request's answer for 250 ms).
    const before = await provider.getBalance(to, receipt.blockNumber - 1);
    assert.equal(await provider.getBalance(to, receipt.blockNumber), before + parseEther('1.5'));
  });

  it('a contract call, its event', async () => {
    const tx = await contract.set(9n);
    const receipt = await tx.wait();
    assert.equal(await contract.number(), 9n);
    const [event] = receipt.logs.map((l) => contract.interface.parseLog(l));
    assert.equal(event.name, 'NumberSet');
    assert.equal(event.args.by, node.accounts[0].address);
  });
});
