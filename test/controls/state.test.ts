import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { bytesToHex } from '@ethereumjs/util';
import { keccak256 } from 'ethers';
import { readStateFile, writeStateFile } from '../../src/chain/controls/stateDisk.js';
import { ADDRS, startTestNode, type TestNode } from '../support/node.js';
import { block, blockNumber, deploy, eventsIface, failure, send, storageIface } from './helpers.js';
import { tempDir } from '../support/tmp.js';

const WHALE = '0x00000000000000000000000000000000000f00d5';
const blobText = (blob: string) => gunzipSync(Buffer.from(blob.slice(2), 'hex')).toString('utf8');
const hexBlob = (text: string) => '0x' + Buffer.from(text).toString('hex');

/** The document's blocks with fields of block i's header replaced. */
const withHeader = (doc: any, i: number, fields: Record<string, string>) => doc.blocks.map((b: any, j: number) => (j === i ? { ...b, header: { ...b.header, ...fields } } : b));

/** The live state root: keccak of the root node an account proof starts with. */
async function liveRoot(n: TestNode): Promise<string> {
  const p = await n.rpc('eth_getProof', [ADDRS[0], [], 'latest']);
  return keccak256(p.accountProof[0]);
}

describe('state dumps', () => {
  let a: TestNode;
  let b: TestNode;
  let storageAt: string;
  let eventsAt: string;
  const txs: string[] = [];
  before(async () => {
    [a, b] = await Promise.all([startTestNode(), startTestNode()]);
    // Some history: contracts with storage and logs, an impersonated sender, cheats, a run of empty blocks.
    storageAt = await deploy(a, 'Storage');
    eventsAt = await deploy(a, 'Events');
    txs.push((await send(a, { to: storageAt, data: storageIface().encodeFunctionData('set', [1234]) })).transactionHash);
    txs.push((await send(a, { to: storageAt, data: storageIface().encodeFunctionData('setBalance', [WHALE, 99]) })).transactionHash);
    txs.push((await send(a, { to: eventsAt, data: eventsIface().encodeFunctionData('many', [3]) })).transactionHash);
    await a.rpc('anvil_setBalance', [WHALE, '0xde0b6b3a7640000']);
    await a.rpc('anvil_impersonateAccount', [WHALE]);
    txs.push((await send(a, { from: WHALE, to: ADDRS[1], value: '0x10' })).transactionHash);
    await a.rpc('anvil_mine', ['0x64']);
    txs.push((await send(a, { from: ADDRS[2], to: WHALE, value: '0x20' })).transactionHash);
    await a.rpc('anvil_setStorageAt', [WHALE, '0x7', '0x0123']);
    await a.rpc('anvil_setCode', [WHALE, '0x600160005500']);
    await a.rpc('anvil_setNonce', [WHALE, '0x9']);
  });
  after(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  test('anvil_dumpState is gzip-compressed JSON in anvil\'s format: accounts, blocks, transactions with receipts', async () => {
    const blob = await a.rpc<string>('anvil_dumpState');
    assert.match(blob, /^0x1f8b/);
    const doc = JSON.parse(blobText(blob));
    assert.deepEqual(Object.keys(doc), ['block', 'accounts', 'best_block_number', 'blocks', 'transactions', 'historical_states', 'nodeRpc']);
    assert.equal(doc.nodeRpc.version, 2);
    const head = await a.rpc<string>('eth_blockNumber');
    assert.equal(doc.best_block_number, Number(head));
    assert.equal(doc.block.number, head);
    assert.equal(doc.nodeRpc.head.number, head);
    assert.equal(doc.nodeRpc.stateRoot, await liveRoot(a));
    const whale = doc.accounts[WHALE];
    assert.deepEqual(whale.storage, { ['0x' + '0'.repeat(63) + '7']: '0x' + '0'.repeat(60) + '0123' });
    assert.equal(whale.code, '0x600160005500');
    assert.equal(whale.nonce, 9);
    assert.ok(Object.keys(doc.accounts[storageAt.toLowerCase()].storage).length >= 2);
    // A run of empty blocks is its recipe, and its last block (anvil needs the head block).
    assert.equal(doc.nodeRpc.emptyRuns.length, 1);
    const run = doc.nodeRpc.emptyRuns[0];
    assert.ok(run.count >= 99, 'anvil_mine of 100 blocks: its first is mined, the others are a run');
    const numbers = doc.blocks.map((b: any) => Number(b.header.number));
    assert.ok(!numbers.includes(Number(run.number)), 'blocks inside a run are not written');
    assert.ok(numbers.includes(Number(run.number) + run.count - 1), 'the last block of a run is');
    assert.deepEqual(doc.transactions.map((t: any) => t.info.transaction_hash).filter((h: string) => txs.includes(h)), txs);
    assert.equal(doc.transactions.length, doc.blocks.reduce((n: number, b: any) => n + b.transactions.length, 0));
    const impersonated = doc.blocks.flatMap((b: any) => b.transactions).filter((t: any) => t.impersonated_sender !== null);
    assert.deepEqual(impersonated.map((t: any) => t.impersonated_sender), [WHALE]);
    assert.equal(await a.rpc('hardhat_dumpState'), blob, 'same document under both names');
  });

  test('loading into a fresh node gives the same state root, accounts, blocks, hashes and receipts', async () => {
    const blob = await a.rpc<string>('anvil_dumpState');
    assert.equal(await b.rpc('anvil_loadState', [blob]), true);
    assert.equal(await blockNumber(b), await blockNumber(a));
    assert.equal(await liveRoot(b), await liveRoot(a));
    const head = await blockNumber(a);
    for (const n of [0, 1, 2, 5, 7, 50, head - 1, head]) assert.deepEqual(await block(b, n, true), await block(a, n, true), `block ${n}`);
    for (const h of txs) {
      assert.deepEqual(await b.rpc('eth_getTransactionReceipt', [h]), await a.rpc('eth_getTransactionReceipt', [h]));
      assert.deepEqual(await b.rpc('eth_getTransactionByHash', [h]), await a.rpc('eth_getTransactionByHash', [h]));
    }
    for (const who of [WHALE, storageAt, eventsAt, ...ADDRS]) {
      assert.equal(await b.rpc('eth_getBalance', [who, 'latest']), await a.rpc('eth_getBalance', [who, 'latest']));
      assert.equal(await b.rpc('eth_getCode', [who, 'latest']), await a.rpc('eth_getCode', [who, 'latest']));
      assert.equal(await b.rpc('eth_getTransactionCount', [who, 'latest']), await a.rpc('eth_getTransactionCount', [who, 'latest']));
    }
    for (const slot of ['0x0', '0x7']) assert.equal(await b.rpc('eth_getStorageAt', [WHALE, slot, 'latest']), await a.rpc('eth_getStorageAt', [WHALE, slot, 'latest']));
    assert.equal(await b.rpc('eth_getStorageAt', [storageAt, '0x0', 'latest']), await a.rpc('eth_getStorageAt', [storageAt, '0x0', 'latest']));
    assert.deepEqual(await b.rpc('eth_getLogs', [{ fromBlock: '0x0', address: eventsAt }]), await a.rpc('eth_getLogs', [{ fromBlock: '0x0', address: eventsAt }]));
    // Both chains go on identically.
    await a.rpc('evm_setNextBlockTimestamp', [Number((await block(a, 'latest')).timestamp) + 100]);
    await b.rpc('evm_setNextBlockTimestamp', [Number((await block(b, 'latest')).timestamp) + 100]);
    await a.rpc('evm_mine');
    await b.rpc('evm_mine');
    assert.deepEqual(await block(b, 'latest'), await block(a, 'latest'));
    // Older states are not part of a dump: a clear error, not a crash.
    const old = await failure(b, 'eth_getBalance', [ADDRS[0], '0x2']);
    assert.match(old.message, /state of block 2 is not available/);
  });

  test('loading into a longer chain merges the accounts only; anvil dumps give their accounts', async () => {
    const other = '0x00000000000000000000000000000000000abcde';
    await b.rpc('anvil_mine', ['0x400']);
    const head = await block(b, 'latest');
    const doc = JSON.parse(blobText(await a.rpc('anvil_dumpState')));
    doc.accounts[other] = { nonce: 3, balance: '0x5', code: '0x', storage: { '0x1': '0x2' } };
    await b.rpc('anvil_loadState', [hexBlob(JSON.stringify(doc))]);
    assert.deepEqual(await block(b, 'latest'), head, 'history kept');
    assert.equal(await b.rpc('eth_getBalance', [other, 'latest']), '0x5');
    assert.equal(await b.rpc('eth_getTransactionCount', [other, 'latest']), '0x3');
    assert.equal(await b.rpc('eth_getStorageAt', [other, '0x1', 'latest']), '0x' + '0'.repeat(63) + '2');

    // What anvil itself writes: accounts plus anvil's own history (not read), gzip or plain.
    const anvilDoc = { block: { number: '0x1' }, best_block_number: '0x1', accounts: { [other]: { nonce: 7, balance: '0x77', code: '0x', storage: {} } }, blocks: [], transactions: [] };
    await b.rpc('hardhat_loadState', ['0x' + gzipSync(JSON.stringify(anvilDoc)).toString('hex')]);
    assert.equal(await b.rpc('eth_getBalance', [other, 'latest']), '0x77');
    assert.equal(await b.rpc('eth_getTransactionCount', [other, 'latest']), '0x7');
  });

  test('corrupt or wrong-version documents are refused clearly and change nothing', async () => {
    const before = await b.rpc('eth_getBalance', [ADDRS[0], 'latest']);
    const head = await block(b, 'latest');
    const doc = JSON.parse(blobText(await a.rpc('anvil_dumpState')));
    const cases: Array<[string, RegExp]> = [
      [hexBlob('{"version":1,'), /not valid JSON/],
      [hexBlob(JSON.stringify({ ...doc, nodeRpc: { ...doc.nodeRpc, version: 3 } })), /unsupported nodeRpc\.version 3: this node reads version 2/],
      [hexBlob(JSON.stringify({ version: 2, accounts: {} })), /unsupported state version 2: this node reads version 1 and anvil's format/],
      [hexBlob(JSON.stringify({ accounts: {} })), /no "version" field/],
      [hexBlob(JSON.stringify({ ...doc, nodeRpc: { ...doc.nodeRpc, chainId: '0x1' } })), /chain id 1, this node runs chain id 984/],
      [hexBlob(JSON.stringify({ ...doc, nodeRpc: { ...doc.nodeRpc, hardfork: 'cancun' } })), /follows cancun, this node runs bpo2 \(start it with --hardfork cancun\)/],
      [hexBlob(JSON.stringify({ ...doc, accounts: { [ADDRS[0]]: { nonce: 0, balance: 'lots' } } })), /balance must be a 0x-hex quantity/],
      [hexBlob(JSON.stringify({ ...doc, blocks: withHeader(doc, 3, { gasUsed: '0x1' }) })), /blocks\[3\]: the block hashes to 0x[0-9a-f]{64} here, not 0x[0-9a-f]{64}/],
      [hexBlob(JSON.stringify({ ...doc, blocks: withHeader(doc, 3, { stateRoot: 'root' }) })), /blocks\[3\]\.header\.stateRoot must be 0x-hex bytes/],
      [hexBlob(JSON.stringify({ ...doc, blocks: doc.blocks.slice(0, -1) })), /the head block \d+ \(best_block_number\) is not in "blocks"/],
      ['0x1f8b0000', /cannot decompress/],
    ];
    for (const [blob, message] of cases) {
      const err = await failure(b, 'anvil_loadState', [blob]);
      assert.equal(err.code, -32602);
      assert.match(err.message, message);
    }
    assert.equal(await b.rpc('eth_getBalance', [ADDRS[0], 'latest']), before);
    assert.deepEqual(await block(b, 'latest'), head);
  });

  test('state files are written atomically and read back (plain or gzip)', async () => {
    const dir = tempDir('node-rpc-state-');
    const path = join(dir, 'state.json');
    const text = blobText(await a.rpc('anvil_dumpState'));
    await writeStateFile(path, text);
    assert.equal(readFileSync(path, 'utf8'), text);
    const parsed = await readStateFile(a.node, path);
    assert.equal(parsed.chain?.head, BigInt(await blockNumber(a)));
    writeFileSync(path + '.gz', gzipSync(text));
    assert.equal((await readStateFile(a.node, path + '.gz')).chain?.head, parsed.chain?.head);
    await assert.rejects(readStateFile(a.node, join(dir, 'missing.json')), /missing\.json: no such file/);
  });
  test('reads of accounts and slots never written keep nothing for the dump; writes are listed', async () => {
    const before = a.node.preimages.size;
    const dumped = Object.keys(JSON.parse(blobText(await a.rpc<string>('anvil_dumpState'))).accounts).length;
    for (let i = 0; i < 20; i++) {
      const who = '0x' + (0xabc000 + i).toString(16).padStart(40, '0');
      const slot = '0x' + (0x5000 + i).toString(16);
      assert.equal(await a.rpc('eth_getBalance', [who, 'latest']), '0x0');
      assert.equal(BigInt(await a.rpc('eth_getStorageAt', [storageAt, slot, 'latest'])), 0n);
      await a.rpc('eth_getProof', [who, [slot], 'latest']);
      await a.rpc('eth_call', [{ to: who, data: '0x01' }, 'latest']);
    }
    assert.equal(a.node.preimages.size, before, 'a read keeps no preimage');
    const fresh = '0x' + 'ab'.repeat(20);
    await a.rpc('anvil_setStorageAt', [fresh, '0x5', '0x01']);
    await a.rpc('evm_mine');
    const slot5 = '0x' + '0'.repeat(63) + '5';
    assert.equal(bytesToHex(a.node.preimages.get(keccak256(fresh))!), fresh, 'the account written');
    assert.equal(bytesToHex(a.node.preimages.get(keccak256(slot5))!), slot5, 'the slot written');
    const doc = JSON.parse(blobText(await a.rpc<string>('anvil_dumpState')));
    assert.equal(Object.keys(doc.accounts).length, dumped + 1);
    assert.deepEqual(doc.accounts[fresh].storage, { [slot5]: '0x' + '0'.repeat(63) + '1' });
  });
  test('successive dumps give each account as it is now: changed ones anew, unchanged ones as before, removed ones gone', async () => {
    const who = (i: number) => '0x' + (0xd0e000 + i).toString(16).padStart(40, '0');
    for (let i = 0; i < 4; i++) {
      await a.rpc('anvil_setBalance', [who(i), '0x10']);
      await a.rpc('anvil_setCode', [who(i), '0x600100']);
      await a.rpc('anvil_setStorageAt', [who(i), '0x1', '0x' + '11'.repeat(32)]);
    }
    const first = JSON.parse(blobText(await a.rpc<string>('anvil_dumpState'))).accounts;
    assert.equal(first[who(0)].balance, '0x10');
    await a.rpc('anvil_setBalance', [who(0), '0x20']);
    await a.rpc('anvil_setStorageAt', [who(1), '0x1', '0x' + '22'.repeat(32)]);
    await a.rpc('anvil_setCode', [who(2), '0x600200']);
    const snap = await a.rpc<string>('evm_snapshot');
    await a.rpc('anvil_setBalance', [who(3), '0x30']);
    const during = JSON.parse(blobText(await a.rpc<string>('anvil_dumpState'))).accounts;
    assert.equal(during[who(3)].balance, '0x30');
    await a.rpc('evm_revert', [snap]);
    await a.rpc('anvil_setBalance', [who(5), '0x50']);
    const second = JSON.parse(blobText(await a.rpc<string>('anvil_dumpState'))).accounts;
    const slot1 = '0x' + '0'.repeat(63) + '1';
    assert.equal(second[who(0)].balance, '0x20');
    assert.deepEqual(second[who(1)].storage, { [slot1]: '0x' + '22'.repeat(32) });
    assert.equal(second[who(2)].code, '0x600200');
    assert.deepEqual(second[who(3)], first[who(3)], 'the change reverted is gone');
    assert.equal(second[who(5)].balance, '0x50');
    assert.equal(Object.keys(second).length, Object.keys(first).length + 1);

    // An account created and then rewound away is gone from the next dump; the order stays by address.
    const before = await a.rpc<string>('evm_snapshot');
    await a.rpc('anvil_setBalance', [who(6), '0x60']);
    await a.rpc('anvil_setBalance', ['0x' + 'ff'.repeat(20), '0x61']);
    const withNew = JSON.parse(blobText(await a.rpc<string>('anvil_dumpState'))).accounts;
    assert.equal(withNew[who(6)].balance, '0x60');
    assert.deepEqual(Object.keys(withNew), Object.keys(withNew).sort(), 'accounts by address');
    await a.rpc('evm_revert', [before]);
    // Dumps asked for at once give the same document.
    const [third, again] = (await Promise.all([a.rpc<string>('anvil_dumpState'), a.rpc<string>('anvil_dumpState')])).map((b) => JSON.parse(blobText(b)).accounts);
    assert.equal(third[who(6)], undefined, 'the account rewound away is gone');
    assert.equal(third['0x' + 'ff'.repeat(20)], undefined);
    assert.deepEqual(third, second);
    assert.deepEqual(again, third);
    assert.deepEqual(Object.keys(third), Object.keys(third).sort(), 'accounts by address');
  });
});
