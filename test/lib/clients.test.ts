/**
 * createNode through the clients users have: viem's custom transport (public, wallet and anvil
 * test clients) and ethers' BrowserProvider, on the provider alone (no HTTP); the provider's
 * events; several nodes in one process, each its own chain; options checked as the flags are.
 * (web3.js: test/lib/web3.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BrowserProvider, Contract, parseEther as ethersParseEther } from 'ethers';
import { createPublicClient, createTestClient, createWalletClient, custom, defineChain, getContract, parseEther, type Abi } from 'viem';
import { createNode } from '../../src/lib/index.js';
import type { Node } from '../../src/lib/types.js';
import { ADDRS, artifact } from '../support/node.js';

const OTHER = '0x00000000000000000000000000000000000000f1' as const;
const chain = defineChain({ id: 31337, name: 'node-rpc', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [] } } });

describe('createNode with viem', () => {
  let node: Node;
  before(async () => {
    node = await createNode({ chainId: 31337 });
  });
  after(() => node.close());

  test('public and wallet clients: balance, transfer, deploy, read, revert reason', async () => {
    const transport = custom(node.provider);
    const client = createPublicClient({ chain, transport, pollingInterval: 10 });
    const wallet = createWalletClient({ chain, transport, account: node.accounts[0]!.address });
    assert.equal(await client.getChainId(), 31337);
    assert.equal(await client.getBalance({ address: ADDRS[1] }), parseEther('10000'));
    const hash = await wallet.sendTransaction({ to: OTHER, value: 5n });
    const receipt = await client.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.equal(await client.getBalance({ address: OTHER }), 5n);

    const r = artifact('Reverter');
    const deployHash = await wallet.deployContract({ abi: r.abi as Abi, bytecode: r.bytecode });
    const address = (await client.waitForTransactionReceipt({ hash: deployHash })).contractAddress!;
    const reverter = getContract({ address, abi: r.abi as Abi, client });
    assert.equal(await reverter.read.counter!(), 0n);
    await assert.rejects(reverter.read.revertWithReason!(), /nope: reason/);
  });

  test("createTestClient({ mode: 'anvil' }): balance, mine, snapshot and revert, impersonation", async () => {
    const transport = custom(node.provider);
    const testClient = createTestClient({ chain, mode: 'anvil', transport });
    const client = createPublicClient({ chain, transport, cacheTime: 0 });
    await testClient.setBalance({ address: OTHER, value: parseEther('3') });
    assert.equal(await client.getBalance({ address: OTHER }), parseEther('3'));
    const before = await client.getBlockNumber();
    await testClient.mine({ blocks: 3 });
    assert.equal(await client.getBlockNumber(), before + 3n);
    const id = await testClient.snapshot();
    await testClient.setBalance({ address: OTHER, value: 1n });
    await testClient.revert({ id });
    assert.equal(await client.getBalance({ address: OTHER }), parseEther('3'));
    await testClient.impersonateAccount({ address: OTHER });
    const wallet = createWalletClient({ chain, transport, account: OTHER });
    const hash = await wallet.sendTransaction({ to: ADDRS[2], value: 1n });
    assert.equal((await client.getTransactionReceipt({ hash })).from, OTHER);
    await testClient.stopImpersonatingAccount({ address: OTHER });
    assert.equal(await testClient.getAutomine(), true);
  });
});

describe('createNode with ethers BrowserProvider', () => {
  let node: Node;
  before(async () => {
    node = await createNode();
  });
  after(() => node.close());

  test('signer transfer, contract deploy and call, revert decoded', async () => {
    const provider = new BrowserProvider(node.provider);
    assert.equal((await provider.getNetwork()).chainId, 984n);
    const signer = await provider.getSigner(0);
    assert.equal(await signer.getAddress(), ADDRS[0]);
    const tx = await signer.sendTransaction({ to: OTHER, value: ethersParseEther('1') });
    assert.equal((await tx.wait())!.status, 1);
    assert.equal(await provider.getBalance(OTHER), ethersParseEther('1'));
    const r = artifact('Reverter');
    const deployTx = await signer.sendTransaction({ data: r.bytecode });
    const address = (await deployTx.wait())!.contractAddress!;
    const reverter = new Contract(address, r.abi, signer);
    assert.equal(await reverter.getFunction('counter')(), 0n);
    await assert.rejects(reverter.getFunction('revertWithReason')(), (err: { reason?: string }) => err.reason === 'nope: reason');
  });
});

describe('the provider as a connection', () => {
  test('connect, message (eth_subscribe), chainChanged, disconnect; removeListener stops delivery', async () => {
    const node = await createNode();
    const seen: string[] = [];
    node.provider.on('connect', (info) => seen.push(`connect ${info.chainId}`));
    const heads: unknown[] = [];
    const onMessage = (m: { type: string; data: { subscription: string; result: { number: string } } }) => heads.push(m);
    node.provider.on('message', onMessage);
    node.provider.on('chainChanged', (id) => seen.push(`chainChanged ${id}`));
    node.provider.on('disconnect', (e) => seen.push(`disconnect ${e.code}`));
    await new Promise((r) => setImmediate(r));
    const sub = await node.provider.request({ method: 'eth_subscribe', params: ['newHeads'] });
    await node.provider.request({ method: 'evm_mine' });
    for (let i = 0; i < 100 && heads.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(heads.length, 1);
    const m = heads[0] as { type: string; data: { subscription: string; result: { number: string } } };
    assert.equal(m.type, 'eth_subscription');
    assert.equal(m.data.subscription, sub);
    assert.equal(m.data.result.number, '0x1');
    node.provider.removeListener('message', onMessage);
    await node.provider.request({ method: 'evm_mine' });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(heads.length, 1);
    assert.equal(await node.provider.request({ method: 'eth_unsubscribe', params: [sub] }), true);
    await node.provider.request({ method: 'anvil_setChainId', params: [77] });
    await node.close();
    assert.deepEqual(seen, ['connect 0x3d8', 'chainChanged 0x4d', 'disconnect 4900']);
    await assert.rejects(node.provider.request({ method: 'eth_chainId' }), { code: 4900 });
  });

  test('listen serves the same chain the provider sees, over HTTP and WebSocket', async () => {
    const node = await createNode();
    try {
      await node.provider.request({ method: 'evm_mine' });
      const { url, ws } = await node.listen({ port: 0 });
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(ws, url.replace('http', 'ws'));
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}' });
      assert.deepEqual(await res.json(), { jsonrpc: '2.0', id: 1, result: '0x1' });
      await assert.rejects(node.listen({ port: 0 }), /already listening/);
    } finally {
      await node.close();
    }
  });
});

describe('many nodes in one process', () => {
  test('each node is its own chain: state, pool, chain id, snapshots', async () => {
    const [a, b] = await Promise.all([createNode({ chainId: 1001, mining: false }), createNode({ chainId: 1002 })]);
    try {
      assert.equal(await a.provider.request({ method: 'eth_chainId' }), '0x3e9');
      assert.equal(await b.provider.request({ method: 'eth_chainId' }), '0x3ea');
      await a.provider.request({ method: 'eth_sendTransaction', params: [{ from: ADDRS[0], to: OTHER, value: '0x7' }] });
      assert.deepEqual(await a.provider.request({ method: 'txpool_status' }), { pending: '0x1', queued: '0x0' });
      assert.deepEqual(await b.provider.request({ method: 'txpool_status' }), { pending: '0x0', queued: '0x0' });
      await b.provider.request({ method: 'anvil_setBalance', params: [OTHER, '0x9'] });
      await a.provider.request({ method: 'evm_mine' });
      assert.equal(await a.provider.request({ method: 'eth_getBalance', params: [OTHER, 'latest'] }), '0x7');
      assert.equal(await b.provider.request({ method: 'eth_getBalance', params: [OTHER, 'latest'] }), '0x9');
      const filterA = await a.provider.request({ method: 'eth_newBlockFilter' });
      await assert.rejects(b.provider.request({ method: 'eth_getFilterChanges', params: [filterA] }), { code: -32000 });
      assert.equal(await b.provider.request({ method: 'eth_blockNumber' }), '0x0');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('createNode options', () => {
  test('a bad option throws an Error naming the option and its flag, with the flag parser\'s reason', async () => {
    await assert.rejects(createNode({ chainId: 0 }), (err: Error) => err instanceof Error && err.message === 'createNode: invalid option chainId (--chain-id): chain id must be between 1 and 9007199254740991');
    await assert.rejects(createNode({ hardfork: 'londun' }), /invalid option hardfork \(--hardfork\): unknown hardfork 'londun': known are chainstart \(frontier\), homestead, .*, bpo2 and latest/);
    await assert.rejects(createNode({ balance: '-1' }), /invalid option balance \(--balance\): balance must be a non-negative number of ether/);
    await assert.rejects(createNode({ mnemonic: 'not words' }), /invalid option mnemonic \(--mnemonic\): not a valid BIP-39 English mnemonic/);
    await assert.rejects(createNode({ order: 'random' as never }), /invalid option order \(--order\): must be fees or fifo/);
    await assert.rejects(createNode({ chainIdd: 1 } as never), /unknown option chainIdd/);
    await assert.rejects(createNode({ fork: { url: 'ftp://x' } }), /invalid option fork\.url \(--fork-url\): fork URL must be an http/);
    await assert.rejects(createNode({ stateInterval: 5 }), /stateInterval \(--state-interval\) needs dumpState or state/);
  });

  test('logging: a function gets the request and block log, request errors included; silent prints none of it', async () => {
    const plain = (l: string) => l.replace(/\x1b\[[0-9;]*m/g, '');
    for (const silent of [false, true]) {
      const lines: string[] = [];
      const node = await createNode({ logging: (l) => lines.push(plain(l)), silent });
      await node.provider.request({ method: 'eth_sendTransaction', params: [{ from: ADDRS[0], to: OTHER, value: '0x1' }] });
      await node.provider.request({ method: 'eth_getBalance', params: ['0x12'] }).catch(() => undefined);
      await node.close();
      if (silent) {
        assert.deepEqual(lines, []);
        continue;
      }
      assert.ok(lines.includes('eth_getBalance: invalid argument 0: expected address (20 bytes), got 1 bytes'), lines.join('\n'));
      assert.ok(lines.some((l) => /^ {4}block #1 /.test(l)), lines.join('\n'));
      assert.ok(lines.includes('eth_sendTransaction'), lines.join('\n'));
    }
  });

  test('options reach the chain: accounts, balance, gas limit, base fee, hardfork, mnemonic, no mining', async () => {
    const node = await createNode({ accounts: 2, balance: '1.5', gasLimit: 40_000_000n, baseFee: 2_000_000_000, hardfork: 'cancun', mining: false });
    try {
      assert.equal(node.accounts.length, 2);
      assert.equal(node.accounts[0]!.address, ADDRS[0]);
      assert.equal(await node.provider.request({ method: 'eth_getBalance', params: [ADDRS[1], 'latest'] }), '0x14d1120d7b160000');
      const block = await node.provider.request({ method: 'eth_getBlockByNumber', params: ['0x0', false] });
      assert.equal(block.gasLimit, '0x2625a00');
      assert.equal(block.baseFeePerGas, '0x77359400');
      assert.equal(block.requestsHash, undefined, 'cancun has no requests hash');
      assert.equal(await node.provider.request({ method: 'anvil_getAutomine' }), false);
    } finally {
      await node.close();
    }
  });
});
