/**
 * State dumps both ways with anvil (its npm package's binary): anvil's dump loaded by this node,
 * this node's dump loaded by anvil, as files (--dump-state / --load-state / --state) and as blobs
 * (anvil_dumpState / anvil_loadState). Each side is read back through JSON-RPC on the other:
 * head number, blocks, receipts, nonces, balances, code and storage.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, test } from 'node:test';
import { startAnvil } from '../support/anvil.js';
import { startCli } from '../support/cli.js';
import { createWalletClient, defineChain, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ADDRS, KEYS, artifact, startTestNode } from '../support/node.js';
import { eventsIface, storageIface } from './helpers.js';
import { tempDir } from '../support/tmp.js';

interface Rpc {
  rpc<T = any>(method: string, params?: unknown[]): Promise<T>;
}

const OTHER = '0x00000000000000000000000000000000000000f1';
const WHALE = '0x00000000000000000000000000000000000f00d5';
const REVERTER = '0x00000000000000000000000000000000000bad01';
const hex = (n: number) => '0x' + n.toString(16);
const tmp = () => tempDir('node-rpc-anvil-state-');
const blobText = (blob: string) => gunzipSync(Buffer.from(blob.slice(2), 'hex')).toString('utf8');

/** What a chain holds, and where to look. */
interface History {
  txs: string[];
  /** The transaction sent by an impersonated sender. */
  impersonated: string;
  contracts: string[];
  /** Block numbers worth comparing (with transactions, inside and after empty blocks, the head). */
  blocks: number[];
}

async function sendTx(n: Rpc, tx: Record<string, string>): Promise<any> {
  const hash = await n.rpc<string>('eth_sendTransaction', [{ from: ADDRS[0], ...tx }]);
  // anvil may answer the hash a moment before its block is stored.
  for (let i = 0; i < 100; i++) {
    const receipt = await n.rpc('eth_getTransactionReceipt', [hash]);
    if (receipt) return receipt;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`not mined: ${hash}`);
}

/** The same kind of history on either node: transfers, contracts with storage and logs, a revert, an impersonated sender, cheats, empty blocks. */
async function makeHistory(n: Rpc): Promise<History> {
  const receipts: any[] = [];
  receipts.push(await sendTx(n, { to: OTHER, value: '0x1234' }));
  receipts.push(await sendTx(n, { data: artifact('Storage').bytecode }));
  const storageAt = receipts[1].contractAddress;
  receipts.push(await sendTx(n, { to: storageAt, data: storageIface().encodeFunctionData('set', [1234]) }));
  receipts.push(await sendTx(n, { data: artifact('Events').bytecode }));
  const eventsAt = receipts[3].contractAddress;
  receipts.push(await sendTx(n, { to: eventsAt, data: eventsIface().encodeFunctionData('many', [3]) }));
  await n.rpc('anvil_setCode', [REVERTER, '0x60006000fd']);
  receipts.push(await sendTx(n, { to: REVERTER, gas: '0x186a0' }));
  assert.equal(receipts[5].status, '0x0');
  await n.rpc('anvil_setBalance', [WHALE, '0xde0b6b3a7640000']);
  await n.rpc('anvil_impersonateAccount', [WHALE]);
  receipts.push(await sendTx(n, { from: WHALE, to: ADDRS[1], value: '0x10' }));
  const beforeRun = Number(await n.rpc('eth_blockNumber'));
  await n.rpc('anvil_mine', [hex(40)]);
  receipts.push(await sendTx(n, { from: ADDRS[2], to: WHALE, value: '0x20' }));
  await n.rpc('anvil_setStorageAt', [WHALE, '0x7', '0x' + '0'.repeat(60) + '0123']);
  await n.rpc('anvil_setCode', [WHALE, '0x600160005500']);
  await n.rpc('anvil_setNonce', [WHALE, '0x9']);
  await n.rpc('evm_mine');
  const head = Number(await n.rpc('eth_blockNumber'));
  const txBlocks = receipts.map((r) => Number(r.blockNumber));
  return {
    txs: receipts.map((r) => r.transactionHash),
    impersonated: receipts[6].transactionHash,
    contracts: [storageAt, eventsAt],
    blocks: [0, ...txBlocks, beforeRun + 1, beforeRun + 2, beforeRun + 20, beforeRun + 40, head],
  };
}

const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);

/** Everything compared between two nodes, read through JSON-RPC. */
async function observe(n: Rpc, h: History): Promise<unknown> {
  const addresses = [ADDRS[0], ADDRS[1], ADDRS[2], OTHER, WHALE, REVERTER, ...h.contracts];
  const accounts = [];
  for (const a of addresses) {
    accounts.push({
      a: a.toLowerCase(),
      balance: await n.rpc('eth_getBalance', [a, 'latest']),
      nonce: await n.rpc('eth_getTransactionCount', [a, 'latest']),
      code: await n.rpc('eth_getCode', [a, 'latest']),
    });
  }
  const storage = [];
  for (const [a, slot] of [[h.contracts[0], '0x0'], [h.contracts[0], '0x1'], [WHALE, '0x7'], [WHALE, '0x8']]) storage.push(await n.rpc('eth_getStorageAt', [a, slot, 'latest']));
  const blocks = [];
  for (const k of h.blocks) {
    const b = await n.rpc('eth_getBlockByNumber', [hex(k), false]);
    assert.ok(b, `block ${k}`);
    const { hash, parentHash, number, stateRoot, transactionsRoot, receiptsRoot, logsBloom, timestamp, gasUsed, gasLimit, baseFeePerGas, transactions } = b;
    blocks.push({ hash, parentHash, number, stateRoot, transactionsRoot, receiptsRoot, logsBloom, timestamp, gasUsed, gasLimit, baseFeePerGas, transactions });
  }
  const receipts = [];
  for (const t of h.txs) {
    const r = await n.rpc('eth_getTransactionReceipt', [t]);
    assert.ok(r, `receipt of ${t}`);
    const logs = r.logs.map((l: any) => ({ address: lower(l.address), topics: l.topics, data: l.data, logIndex: l.logIndex, blockHash: l.blockHash }));
    receipts.push({
      transactionHash: r.transactionHash,
      blockHash: r.blockHash,
      blockNumber: r.blockNumber,
      transactionIndex: r.transactionIndex,
      from: lower(r.from),
      to: lower(r.to),
      status: r.status,
      gasUsed: r.gasUsed,
      cumulativeGasUsed: r.cumulativeGasUsed,
      effectiveGasPrice: r.effectiveGasPrice,
      contractAddress: lower(r.contractAddress),
      logsBloom: r.logsBloom,
      logs,
    });
    const tx = await n.rpc('eth_getTransactionByHash', [t]);
    assert.equal(tx.hash, t);
    assert.equal(tx.blockNumber, r.blockNumber);
  }
  return { head: await n.rpc('eth_blockNumber'), accounts, storage, blocks, receipts };
}

/** The loaded chain goes on: a transfer is mined on top of the loaded head. */
async function goesOn(n: Rpc, head: string): Promise<void> {
  const r = await sendTx(n, { to: OTHER, value: '0x1' });
  assert.equal(Number(r.blockNumber), Number(head) + 1);
}

describe('state dumps with anvil', () => {
  test("anvil's --dump-state file loads into node-rpc --load-state: the chain, accounts and receipts", async () => {
    const file = join(tmp(), 'anvil.json');
    const anvil = await startAnvil(['--hardfork', 'prague', '--dump-state', file]);
    let h: History;
    let expected: any;
    try {
      h = await makeHistory(anvil);
      expected = await observe(anvil, h);
    } finally {
      await anvil.close();
    }
    assert.equal(JSON.parse(readFileSync(file, 'utf8')).best_block_number, Number(expected.head));
    const node = await startCli(['--load-state', file]);
    try {
      assert.match(node.output(), new RegExp(`Loaded state from .*chain up to block #${Number(expected.head)}`));
      assert.deepEqual(await observe(node, h), expected);
      await goesOn(node, expected.head);
    } finally {
      assert.equal(await node.stop(), 0);
    }
  });

  test("node-rpc's --dump-state file loads into anvil --load-state, and anvil's --state file back into node-rpc", async () => {
    const dir = tmp();
    const file = join(dir, 'node-rpc.json');
    const node = await startCli(['--dump-state', file]);
    let h: History;
    let expected: any;
    try {
      h = await makeHistory(node);
      expected = await observe(node, h);
    } finally {
      assert.equal(await node.stop(), 0);
    }
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(doc.best_block_number, Number(expected.head));
    assert.equal(doc.nodeRpc.emptyRuns.length, 1, 'the empty blocks are a run here');

    // anvil answers the same, except for the blocks inside the run, which the file does not hold.
    const run = doc.nodeRpc.emptyRuns[0];
    const inRun = (k: number) => k >= Number(run.number) && k < Number(run.number) + run.count - 1;
    const outside = { ...h, blocks: h.blocks.filter((k) => !inRun(k)) };
    assert.ok(outside.blocks.length < h.blocks.length);
    const anvilState = join(dir, 'through-anvil.json');
    const anvil = await startAnvil(['--hardfork', 'prague', '--load-state', file, '--dump-state', anvilState]);
    try {
      assert.deepEqual(maskImpersonated(await observe(anvil, outside), h), maskImpersonated(pick(expected, h, outside), h));
      assert.equal(await anvil.rpc('eth_getBlockByNumber', [hex(Number(run.number)), false]), null, 'a block inside a run is not in the file');
    } finally {
      await anvil.close();
    }

    // What anvil wrote (without this node's field) gives this node the whole chain back: the
    // blocks of the run are rebuilt from its first and last, whose hashes they reproduce.
    assert.equal(JSON.parse(readFileSync(anvilState, 'utf8')).nodeRpc, undefined);
    const back = await startCli(['--state', anvilState]);
    try {
      assert.deepEqual(await observe(back, h), expected);
      await goesOn(back, expected.head);
    } finally {
      assert.equal(await back.stop(), 0);
    }
  });

  test('anvil_dumpState blobs load both ways with anvil_loadState', async () => {
    const [anvil, node] = await Promise.all([startAnvil(['--hardfork', 'prague']), startTestNode()]);
    try {
      // anvil → node-rpc
      const ha = await makeHistory(anvil);
      const fromAnvil = await anvil.rpc<string>('anvil_dumpState');
      assert.match(fromAnvil, /^0x1f8b/);
      assert.equal(await node.rpc('anvil_loadState', [fromAnvil]), true);
      const expected = await observe(anvil, ha);
      assert.deepEqual(await observe(node, ha), expected);
    } finally {
      await Promise.all([anvil.close(), node.close()]);
    }
    const [source, target] = await Promise.all([startTestNode(), startAnvil(['--hardfork', 'prague'])]);
    try {
      // node-rpc → anvil: a gzip blob anvil decodes.
      const hn = await makeHistory(source);
      const blob = await source.rpc<string>('anvil_dumpState');
      assert.match(blob, /^0x1f8b/);
      assert.equal(await source.rpc('anvil_dumpState', [false]), blob, "anvil's optional flag is accepted");
      assert.equal(await target.rpc('anvil_loadState', [blob]), true);
      const runs = JSON.parse(blobText(blob)).nodeRpc.emptyRuns;
      const outside = { ...hn, blocks: hn.blocks.filter((k) => !runs.some((r: any) => k >= Number(r.number) && k < Number(r.number) + r.count - 1)) };
      const expected = await observe(source, hn);
      assert.deepEqual(maskImpersonated(await observe(target, outside), hn), maskImpersonated(pick(expected, hn, outside), hn));
      await goesOn(target, (expected as any).head);
    } finally {
      await Promise.all([source.close(), target.close()]);
    }
  });

  test("node-rpc's periodic --state-interval file loads into anvil while node-rpc runs", async () => {
    const file = join(tmp(), 'periodic.json');
    const node = await startCli(['--state', file, '--state-interval', '0.2']);
    try {
      await sendTx(node, { to: OTHER, value: '0x77' });
      const slot = '0x' + '0'.repeat(63) + '5';
      await node.rpc('anvil_setStorageAt', [OTHER, '0x1', slot]);
      const deadline = Date.now() + 10_000;
      while (!existsSync(file) || !readFileSync(file, 'utf8').includes(`"${slot}"`)) {
        assert.ok(Date.now() < deadline, 'no periodic write');
        await new Promise((r) => setTimeout(r, 50));
      }
      const anvil = await startAnvil(['--hardfork', 'prague', '--load-state', file]);
      try {
        assert.equal(await anvil.rpc('eth_blockNumber'), '0x1');
        assert.equal((await anvil.rpc('eth_getBlockByNumber', ['0x1', false])).hash, (await node.rpc('eth_getBlockByNumber', ['0x1', false])).hash);
        assert.equal(await anvil.rpc('eth_getBalance', [OTHER, 'latest']), '0x77');
        assert.equal(await anvil.rpc('eth_getStorageAt', [OTHER, '0x1', 'latest']), slot);
      } finally {
        await anvil.close();
      }
    } finally {
      assert.equal(await node.stop(), 0);
    }
  });

  test('legacy, access-list and EIP-7702 transactions keep their fields, signatures and hashes both ways', async () => {
    const chain = defineChain({ id: 984, name: 'dev', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: ['http://127.0.0.1'] } } });
    /** A signed legacy transfer, an access-list one, and an EIP-7702 delegation with a call; their hashes. */
    async function typed(n: Rpc & { url: string }): Promise<string[]> {
      const hashes: string[] = [];
      hashes.push((await sendTx(n, { to: OTHER, value: '0x3', gasPrice: '0x77359400' })).transactionHash);
      hashes.push((await sendTx(n, { to: OTHER, value: '0x4', gasPrice: '0x77359400', accessList: [{ address: OTHER, storageKeys: ['0x' + '0'.repeat(63) + '1'] }] } as never)).transactionHash);
      const delegate = (await sendTx(n, { data: artifact('Delegation').bytecode })).contractAddress;
      const eoa = privateKeyToAccount(KEYS[2]);
      const wallet = createWalletClient({ chain, transport: http(n.url), account: eoa });
      const authorization = await wallet.signAuthorization({ account: eoa, contractAddress: delegate, executor: 'self' });
      hashes.push(await wallet.writeContract({ address: eoa.address, abi: artifact('Delegation').abi, functionName: 'ping', authorizationList: [authorization], account: eoa, chain }));
      for (let i = 0; i < 100 && !(await n.rpc('eth_getTransactionReceipt', [hashes[2]])); i++) await new Promise((r) => setTimeout(r, 20));
      // A legacy transaction of an impersonated sender (anvil signs it with a zero signature and EIP-155's v).
      await n.rpc('anvil_setBalance', [WHALE, '0xde0b6b3a7640000']);
      await n.rpc('anvil_impersonateAccount', [WHALE]);
      hashes.push((await sendTx(n, { from: WHALE, to: OTHER, value: '0x5', gasPrice: '0x77359400' })).transactionHash);
      return hashes;
    }
    async function seen(n: Rpc, hashes: string[]): Promise<unknown> {
      const out = [];
      for (const h of hashes) {
        const t = await n.rpc('eth_getTransactionByHash', [h]);
        const r = await n.rpc('eth_getTransactionReceipt', [h]);
        const b = await n.rpc('eth_getBlockByNumber', [t.blockNumber, false]);
        out.push({
          hash: t.hash, type: t.type, nonce: t.nonce, v: t.v, r: t.r, s: t.s, input: t.input, accessList: t.accessList, blockHash: t.blockHash,
          authorizationList: t.authorizationList?.map((a: any) => ({ chainId: a.chainId, address: lower(a.address), nonce: a.nonce, yParity: a.yParity, r: a.r, s: a.s })),
          status: r.status, gasUsed: r.gasUsed, blockTransactions: b.transactions, transactionsRoot: b.transactionsRoot,
        });
      }
      out.push(await n.rpc('eth_getCode', [privateKeyToAccount(KEYS[2]).address, 'latest']));
      return out;
    }
    const [anvil, node] = await Promise.all([startAnvil(['--hardfork', 'prague']), startTestNode()]);
    try {
      const fromAnvil = await typed(anvil);
      assert.equal(await node.rpc('anvil_loadState', [await anvil.rpc('anvil_dumpState')]), true);
      const expected: any = await seen(anvil, fromAnvil);
      assert.deepEqual(expected.slice(0, 4).map((t: any) => t.type), ['0x0', '0x1', '0x4', '0x0']);
      assert.match(expected.at(-1), /^0xef0100/);
      assert.deepEqual(await seen(node, fromAnvil), expected);
    } finally {
      await Promise.all([anvil.close(), node.close()]);
    }
    const [source, target] = await Promise.all([startTestNode(), startAnvil(['--hardfork', 'prague'])]);
    try {
      const fromNode = await typed(source);
      assert.equal(await target.rpc('anvil_loadState', [await source.rpc('anvil_dumpState')]), true);
      // The impersonated sender's transaction: anvil lists it in its block under its own hash (see maskImpersonated).
      assert.deepEqual(await seen(target, fromNode.slice(0, 3)), await seen(source, fromNode.slice(0, 3)));
      const impersonated = await target.rpc('eth_getTransactionReceipt', [fromNode[3]]);
      assert.equal(impersonated.status, '0x1');
      assert.equal(impersonated.from, WHALE);
    } finally {
      await Promise.all([source.close(), target.close()]);
    }
  });

  test('chain ids that differ: node-rpc refuses the chain naming both; anvil loads it under its own id', async () => {
    const anvil = await startAnvil(['--hardfork', 'prague', '--chain-id', '31337']);
    const node = await startTestNode();
    try {
      await sendTx(anvil, { to: OTHER, value: '0x5' });
      const blob = await anvil.rpc<string>('anvil_dumpState');
      const r = await node.raw('anvil_loadState', [blob]);
      assert.equal(r.error?.code, -32602);
      assert.match(r.error!.message, /the chain in it has chain id 31337, this node runs chain id 984 \(start it with --chain-id 31337\)/);
      assert.equal(await node.rpc('eth_blockNumber'), '0x0', 'nothing loaded');

      // anvil does not check: the blocks and accounts load, its chain id stays its own.
      await sendTx(node, { to: OTHER, value: '0x7' });
      await anvil.rpc('anvil_reset', []);
      assert.equal(await anvil.rpc('anvil_loadState', [await node.rpc('anvil_dumpState')]), true);
      assert.equal(await anvil.rpc('eth_chainId'), '0x7a69');
      assert.equal(await anvil.rpc('eth_blockNumber'), '0x1');
      assert.equal(await anvil.rpc('eth_getBalance', [OTHER, 'latest']), '0x7');
    } finally {
      await Promise.all([anvil.close(), node.close()]);
    }
  });
});

/**
 * anvil lists a transaction of an impersonated sender in its block under a hash of its own making
 * (keccak of the encoding and the sender), not the one its receipt and lookups keep.
 */
function maskImpersonated(obs: any, h: History): unknown {
  const r = obs.receipts[h.txs.indexOf(h.impersonated)];
  const blocks = obs.blocks.map((b: any) =>
    b.number === r.blockNumber ? { ...b, transactions: b.transactions.map((t: string, i: number) => (i === Number(r.transactionIndex) ? 'impersonated' : t)) } : b,
  );
  return { ...obs, blocks };
}

/** The part of an observation that covers only `subset`'s blocks. */
function pick(expected: any, all: History, subset: History): unknown {
  return { ...expected, blocks: expected.blocks.filter((_: unknown, i: number) => subset.blocks.includes(all.blocks[i])) };
}
