/** ethers 6 and viem 2 against a fork: contracts, signed transactions, blocks across the fork point, logs. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Contract, JsonRpcProvider, Wallet } from 'ethers';
import { createPublicClient, createWalletClient, defineChain, getAddress, http, parseAbiItem, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { KEYS, artifact, startTestNode, type TestNode } from '../support/node.js';
import { HOLDER, RICH, forkOf, startUpstream, type Upstream } from './helpers.js';

const chain = defineChain({
  id: 984,
  name: 'node-rpc fork',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1'] } },
});

describe('ethers and viem against a fork', () => {
  let up: Upstream;
  let fork: TestNode;

  before(async () => {
    up = await startUpstream();
    fork = await startTestNode({ fork: forkOf(up) });
  });
  after(async () => {
    await fork?.close();
    await up?.node.close();
  });

  test('ethers: upstream contract, a signed transfer on the fork, the chain of blocks across the fork point', async () => {
    const provider = new JsonRpcProvider(fork.url, 984, { staticNetwork: true, batchMaxCount: 1 });
    try {
      const wallet = new Wallet(KEYS[0], provider);
      const token = new Contract(up.token, artifact('Token').abi, wallet);
      assert.equal(await token.balanceOf(HOLDER), 5000n);
      const tx = await token.transfer(RICH, 25n);
      const receipt = await tx.wait();
      assert.equal(receipt!.status, 1);
      assert.equal(await token.balanceOf(RICH), 25n);
      // Walk back from the local head into the upstream's blocks.
      const mined = await provider.getBlock(receipt!.blockHash);
      assert.equal(BigInt(mined!.number), up.forkBlock + 1n);
      const parent = await provider.getBlock(mined!.parentHash);
      assert.equal(BigInt(parent!.number), up.forkBlock);
      const grandparent = await provider.getBlock(parent!.parentHash);
      assert.equal(BigInt(grandparent!.number), up.forkBlock - 1n);
      const deployTx = await provider.getTransaction(up.deployTx);
      assert.equal(deployTx!.hash, up.deployTx);
    } finally {
      provider.destroy();
    }
  });

  test('viem: reads, a signed transaction, logs across the fork point', async () => {
    const pub = createPublicClient({ chain, transport: http(fork.url) });
    const wallet = createWalletClient({ chain, transport: http(fork.url), account: privateKeyToAccount(KEYS[0]) });
    const abi = artifact('Token').abi;
    const holder = getAddress(HOLDER);
    assert.equal(await pub.readContract({ address: up.token as Address, abi, functionName: 'balanceOf', args: [holder] }), 5000n);
    assert.equal(await pub.getBalance({ address: up.funded[8] as Address }), 9000n);
    const hash = await wallet.writeContract({ address: up.token as Address, abi, functionName: 'transfer', args: [holder, 5n], chain });
    const r = await pub.waitForTransactionReceipt({ hash });
    assert.equal(r.status, 'success');
    const logs = await pub.getLogs({
      address: up.token as Address,
      event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
      fromBlock: 0n,
      toBlock: 'latest',
    });
    // Mint and the transfer to HOLDER upstream, then the local ones.
    assert.ok(logs.length >= 3);
    assert.ok(logs.some((l) => l.blockNumber! <= up.forkBlock) && logs.some((l) => l.blockNumber! > up.forkBlock));
    assert.equal(logs[logs.length - 1].transactionHash, hash);
    assert.equal(logs[logs.length - 1].args.value, 5n);
  });
});
