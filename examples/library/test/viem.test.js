// One chain for this file, in this process: no port, no server, no process to start.
import assert from 'node:assert/strict';
import { createNode } from 'node-rpc';
import { createPublicClient, createTestClient, createWalletClient, custom, defineChain, getContract, parseEther } from 'viem';
import { storage } from '../storage.js';

describe('viem over custom(node.provider)', () => {
  const chain = defineChain({ id: 31337, name: 'node-rpc', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [] } } });
  let node, client, wallet, testClient, contract;

  before(async () => {
    node = await createNode({ chainId: 31337 });
    const transport = custom(node.provider);
    client = createPublicClient({ chain, transport, pollingInterval: 10, cacheTime: 0 });
    wallet = createWalletClient({ chain, transport, account: node.accounts[0].address });
    testClient = createTestClient({ chain, transport, mode: 'anvil' });
    const hash = await wallet.deployContract({ abi: storage.abi, bytecode: storage.bytecode });
    const { contractAddress } = await client.waitForTransactionReceipt({ hash });
    contract = getContract({ address: contractAddress, abi: storage.abi, client: { public: client, wallet } });
  });
  after(() => node.close());

  it('set a number and read it back', async () => {
    const hash = await contract.write.set([42n]);
    const receipt = await client.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.equal(await contract.read.number(), 42n);
  });

  it('each test starts from a snapshot', async () => {
    const id = await testClient.snapshot();
    await contract.write.set([7n]);
    assert.equal(await contract.read.number(), 7n);
    await testClient.revert({ id });
    assert.equal(await contract.read.number(), 42n);
  });

  it('cheats: balances, time, mining', async () => {
    const someone = '0x00000000000000000000000000000000000000aa';
    await testClient.setBalance({ address: someone, value: parseEther('5') });
    assert.equal(await client.getBalance({ address: someone }), parseEther('5'));
    const before = await client.getBlock();
    await testClient.setNextBlockTimestamp({ timestamp: before.timestamp + 3600n });
    await testClient.mine({ blocks: 1 });
    const after = await client.getBlock();
    assert.equal(after.timestamp, before.timestamp + 3600n);
    assert.equal(after.number, before.number + 1n);
  });
});
