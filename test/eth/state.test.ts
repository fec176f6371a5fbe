import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MerklePatriciaTrie, verifyMPTWithMerkleProof } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { ContractFactory, Interface, JsonRpcProvider, Wallet, type Contract } from 'ethers';
import { ADDRS, KEYS, artifact, startTestNode, type TestNode } from '../support/node.js';

describe('state, blocks and history', () => {
  let n: TestNode;
  let provider: JsonRpcProvider;
  let storage: Contract;
  let storageAddr: string;
  let setBlock: number;
  const iface = new Interface(artifact('Storage').abi);

  before(async () => {
    n = await startTestNode();
    provider = new JsonRpcProvider(n.url, 984, { staticNetwork: true, cacheTimeout: -1 });
    const wallet = new Wallet(KEYS[0], provider);
    const s = artifact('Storage');
    storage = (await (await new ContractFactory(s.abi, s.bytecode, wallet).deploy()).waitForDeployment()) as Contract;
    storageAddr = await storage.getAddress();
    const r = await (await storage.set(42n)).wait();
    setBlock = r!.blockNumber;
    await (await storage.setBalance(ADDRS[1], 7n)).wait();
    await (await storage.set(43n)).wait();
  });
  after(async () => {
    provider.destroy();
    await n.close();
  });

  test('eth_getStorageAt at the latest block and at a past block', async () => {
    const latest = await n.rpc('eth_getStorageAt', [storageAddr, '0x0', 'latest']);
    assert.equal(BigInt(latest), 43n);
    const past = await n.rpc('eth_getStorageAt', [storageAddr, '0x0', `0x${setBlock.toString(16)}`]);
    assert.equal(BigInt(past), 42n);
    assert.equal(past.length, 66);
    const before = await n.rpc('eth_getStorageAt', [storageAddr, '0x0', { blockNumber: `0x${(setBlock - 1).toString(16)}` }]);
    assert.equal(BigInt(before), 0n);
  });

  test('EIP-1898 block hash references and unknown blocks', async () => {
    const block = await provider.getBlock(setBlock);
    const byHash = await n.rpc('eth_getStorageAt', [storageAddr, '0x0', { blockHash: block!.hash, requireCanonical: true }]);
    assert.equal(BigInt(byHash), 42n);
    const missing = await n.raw('eth_getBalance', [ADDRS[0], '0xffffff']);
    assert.equal(missing.error!.code, -32000);
    assert.equal(missing.error!.message, 'header not found');
    const missingHash = await n.raw('eth_getBalance', [ADDRS[0], { blockHash: '0x' + '12'.repeat(32) }]);
    assert.equal(missingHash.error!.code, -32000);
    assert.equal(await n.rpc('eth_getBlockByNumber', ['0xffffff', false]), null);
    assert.equal(await n.rpc('eth_getBlockByHash', ['0x' + '12'.repeat(32), false]), null);
  });

  test('block tags resolve', async () => {
    const head = Number(await n.rpc('eth_blockNumber'));
    for (const tag of ['latest', 'safe', 'finalized']) {
      const b = await n.rpc('eth_getBlockByNumber', [tag, false]);
      assert.equal(Number(b.number), head, tag);
    }
    // `pending` is the block mined next: its parent is the head.
    const pending = await n.rpc('eth_getBlockByNumber', ['pending', false]);
    assert.equal(Number(pending.number), head + 1);
    assert.equal(pending.parentHash, (await n.rpc('eth_getBlockByNumber', ['latest', false])).hash);
    const genesis = await n.rpc('eth_getBlockByNumber', ['earliest', true]);
    assert.equal(genesis.number, '0x0');
    assert.deepEqual(genesis.transactions, []);
  });

  test('blocks link up and full transaction objects match lookups', async () => {
    const b = await n.rpc('eth_getBlockByNumber', [`0x${setBlock.toString(16)}`, true]);
    const parent = await n.rpc('eth_getBlockByNumber', [`0x${(setBlock - 1).toString(16)}`, false]);
    assert.equal(b.parentHash, parent.hash);
    assert.equal(b.transactions.length, 1);
    const tx = b.transactions[0];
    assert.deepEqual(await n.rpc('eth_getTransactionByHash', [tx.hash]), tx);
    assert.deepEqual(await n.rpc('eth_getTransactionByBlockHashAndIndex', [b.hash, '0x0']), tx);
    assert.deepEqual(await n.rpc('eth_getTransactionByBlockNumberAndIndex', [b.number, '0x0']), tx);
    assert.equal(await n.rpc('eth_getTransactionByBlockNumberAndIndex', [b.number, '0x5']), null);
    assert.equal(await n.rpc('eth_getBlockTransactionCountByHash', [b.hash]), '0x1');
    assert.equal(await n.rpc('eth_getBlockTransactionCountByNumber', [b.number]), '0x1');
    assert.equal(await n.rpc('eth_getUncleCountByBlockHash', [b.hash]), '0x0');
    assert.equal(await n.rpc('eth_getUncleCountByBlockNumber', [b.number]), '0x0');
    assert.equal(await n.rpc('eth_getUncleByBlockHashAndIndex', [b.hash, '0x0']), null);
    assert.equal(await n.rpc('eth_getUncleByBlockNumberAndIndex', [b.number, '0x0']), null);
    const raw = await n.rpc('eth_getRawTransactionByHash', [tx.hash]);
    const parsed = (await import('ethers')).Transaction.from(raw);
    assert.equal(parsed.hash, tx.hash);
    const receipts = await n.rpc('eth_getBlockReceipts', [b.number]);
    assert.deepEqual(receipts, [await n.rpc('eth_getTransactionReceipt', [tx.hash])]);
    assert.equal(receipts[0].logs[0].logIndex, '0x0');
    assert.equal(receipts[0].logs[0].blockHash, b.hash);
    assert.equal(receipts[0].logs[0].removed, false);
  });

  test('eth_getProof verifies against the block state root', async () => {
    const block = await n.rpc('eth_getBlockByNumber', ['latest', false]);
    const proof = await n.rpc('eth_getProof', [storageAddr, ['0x0', '0x1'], 'latest']);
    const stateRoot = hexToBytes(block.stateRoot);
    const trie = new MerklePatriciaTrie({ useKeyHashing: true });
    const accountRlp = await verifyMPTWithMerkleProof(trie, stateRoot, hexToBytes(storageAddr as `0x${string}`), proof.accountProof.map(hexToBytes));
    assert.ok(accountRlp, 'account proof verifies');
    const [nonce, balance, storageRoot, codeHash] = RLP.decode(accountRlp!) as Uint8Array[];
    assert.equal(bytesToBigInt(nonce), BigInt(proof.nonce));
    assert.equal(bytesToBigInt(balance), BigInt(proof.balance));
    assert.equal(Buffer.from(codeHash).toString('hex'), proof.codeHash.slice(2));
    assert.equal('0x' + Buffer.from(storageRoot).toString('hex'), proof.storageHash);
    const slot = proof.storageProof[0];
    const value = await verifyMPTWithMerkleProof(new MerklePatriciaTrie({ useKeyHashing: true }), storageRoot, setLengthLeft(hexToBytes(slot.key), 32), slot.proof.map(hexToBytes));
    assert.equal(bytesToBigInt(RLP.decode(value!) as Uint8Array), 43n);
    assert.equal(BigInt(slot.value), 43n);
  });

  test('eth_call with state overrides: balance, nonce, code, state and stateDiff', async () => {
    const data = iface.encodeFunctionData('number');
    const plain = await n.rpc('eth_call', [{ to: storageAddr, data }, 'latest']);
    assert.equal(BigInt(plain), 43n);
    const slot0 = '0x' + '00'.repeat(32);
    const diff = await n.rpc('eth_call', [{ to: storageAddr, data }, 'latest', { [storageAddr]: { stateDiff: { [slot0]: '0x' + '00'.repeat(31) + '07' } } }]);
    assert.equal(BigInt(diff), 7n);
    const state = await n.rpc('eth_call', [{ to: storageAddr, data: iface.encodeFunctionData('balances', [ADDRS[1]]) }, 'latest', { [storageAddr]: { state: {} } }]);
    assert.equal(BigInt(state), 0n, 'state replaces all storage');
    const codeAddr = '0x00000000000000000000000000000000000c0de0';
    const code = await n.rpc('eth_call', [{ to: codeAddr, data }, 'latest', { [codeAddr]: { code: artifact('Storage').deployedBytecode } }]);
    assert.equal(BigInt(code), 0n);
    const rich = '0x00000000000000000000000000000000000000aa';
    const est = await n.rpc('eth_estimateGas', [{ from: rich, to: ADDRS[2], value: '0xde0b6b3a7640000', gasPrice: '0x2540be400' }, 'latest', { [rich]: { balance: '0xffffffffffffffffffffff' } }]);
    assert.equal(est, '0x5208');
    const both = await n.raw('eth_call', [{ to: storageAddr, data }, 'latest', { [storageAddr]: { state: {}, stateDiff: {} } }]);
    assert.equal(both.error!.code, -32602);
    assert.equal(BigInt(await n.rpc('eth_call', [{ to: storageAddr, data }])), 43n, 'overrides never persist');
  });

  test('eth_createAccessList lists the touched storage and its gas', async () => {
    const data = iface.encodeFunctionData('set', [5n]);
    const r = await n.rpc('eth_createAccessList', [{ from: ADDRS[0], to: storageAddr, data }, 'latest']);
    assert.deepEqual(r.accessList, [{ address: storageAddr.toLowerCase(), storageKeys: ['0x' + '00'.repeat(32)] }]);
    assert.ok(BigInt(r.gasUsed) > 21000n);
  });

  test('calls that write storage leave the node store as it was (eth_call, eth_estimateGas, eth_createAccessList)', async () => {
    const size = n.node.trieNodes.size;
    for (let i = 0; i < 10; i++) {
      const call = { from: ADDRS[0], to: storageAddr, data: iface.encodeFunctionData('set', [1000n + BigInt(i)]) };
      assert.equal(await n.rpc('eth_call', [call, 'latest']), '0x');
      assert.ok(BigInt(await n.rpc('eth_estimateGas', [call])) > 21_000n);
      assert.equal((await n.rpc<any>('eth_createAccessList', [call, 'latest'])).accessList.length, 1);
    }
    assert.equal(n.node.trieNodes.size, size, 'nothing a call wrote stays in the store');
    assert.equal(BigInt(await n.rpc('eth_getStorageAt', [storageAddr, '0x0', 'latest'])), 43n);
  });

  test('account reads: balance, nonce (latest and pending), code', async () => {
    assert.equal(await n.rpc('eth_getTransactionCount', [ADDRS[0], 'latest']), '0x4');
    assert.equal(await n.rpc('eth_getTransactionCount', [ADDRS[0], 'pending']), '0x4');
    assert.equal(await n.rpc('eth_getTransactionCount', [ADDRS[0], '0x0']), '0x0');
    assert.equal(await n.rpc('eth_getBalance', [ADDRS[3 - 1], '0x0']), '0x21e19e0c9bab2400000');
    assert.equal(await n.rpc('eth_getCode', [ADDRS[1], 'latest']), '0x');
    assert.equal(await n.rpc('eth_getCode', [storageAddr, 'latest']), artifact('Storage').deployedBytecode);
    assert.deepEqual(await n.rpc('eth_accounts'), (await n.rpc<string[]>('eth_accounts')).map((a) => a.toLowerCase()));
    assert.equal((await n.rpc<string[]>('eth_accounts')).length, 10);
    assert.equal(await n.rpc('eth_syncing'), false);
    assert.equal(await n.rpc('eth_mining'), true);
    assert.equal(await n.rpc('eth_hashrate'), '0x0');
    assert.equal(await n.rpc('eth_coinbase'), '0x0000000000000000000000000000000000000000');
  });
});
