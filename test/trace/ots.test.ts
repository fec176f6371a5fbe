/**
 * Otterscan's API (ots_*) and erigon_getHeaderByNumber, answered for the same transactions here
 * and by anvil, and compared: exactly where both are deterministic, by shape and content where
 * hashes and timestamps necessarily differ between the two chains.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Interface } from 'ethers';
import { startAnvil, type Anvil } from '../support/anvil.js';
import { ADDRS, artifact, startTestNode, type TestNode, waitForReceipt } from '../support/node.js';

const A0 = ADDRS[0].toLowerCase();

interface Node {
  rpc(method: string, params?: unknown[]): Promise<any>;
}

async function scenario(n: Node) {
  const wait = (hash: string) => waitForReceipt(n, hash);
  const send = async (tx: object) => wait(await n.rpc('eth_sendTransaction', [{ from: A0, ...tx }]));
  const callee = (await send({ data: artifact('Callee').bytecode })).contractAddress;
  const caller = (await send({ data: artifact('Caller').bytecode })).contractAddress;
  const ci = new Interface(artifact('Caller').abi);
  const nested = await send({ to: caller, data: ci.encodeFunctionData('callStore', [callee, 5n]) });
  const create = await send({ to: caller, value: '0x7', data: ci.encodeFunctionData('deployPlain') });
  const reverted = await send({ to: callee, data: new Interface(artifact('Callee').abi).encodeFunctionData('fail'), gas: '0x186a0' });
  const internal = await n.rpc('ots_getInternalOperations', [create.transactionHash]);
  const child = internal.find((o: { type: number }) => o.type === 2).to;
  const block = Number(BigInt(nested.blockNumber));
  return {
    callee,
    caller,
    child,
    nested,
    api: await n.rpc('ots_getApiLevel'),
    hasCode: [await n.rpc('ots_hasCode', [callee, 'latest']), await n.rpc('ots_hasCode', [A0, 'latest'])],
    internal,
    txError: [await n.rpc('ots_getTransactionError', [reverted.transactionHash]), await n.rpc('ots_getTransactionError', [nested.transactionHash])],
    trace: await n.rpc('ots_traceTransaction', [nested.transactionHash]),
    details: await n.rpc('ots_getBlockDetails', [block]),
    detailsByHash: await n.rpc('ots_getBlockDetailsByHash', [nested.blockHash]),
    blockTxs: await n.rpc('ots_getBlockTransactions', [block, 0, 10]),
    before: await n.rpc('ots_searchTransactionsBefore', [A0, 0, 2]),
    after: await n.rpc('ots_searchTransactionsAfter', [A0, 0, 2]),
    calleeHistory: await n.rpc('ots_searchTransactionsBefore', [callee, 0, 10]),
    bySender: [await n.rpc('ots_getTransactionBySenderAndNonce', [A0, 2]), await n.rpc('ots_getTransactionBySenderAndNonce', [A0, 99])],
    creators: [await n.rpc('ots_getContractCreator', [callee]), await n.rpc('ots_getContractCreator', [A0]), await n.rpc('ots_getContractCreator', [child])],
    header: await n.rpc('erigon_getHeaderByNumber', [block]),
  };
}

const keys = (o: object) => Object.keys(o).sort();
const nonces = (page: { txs: Array<{ nonce: string }> }) => page.txs.map((t) => t.nonce);

describe('ots_* against anvil', () => {
  let n: TestNode;
  let anvil: Anvil;
  let ours: Awaited<ReturnType<typeof scenario>>;
  let theirs: Awaited<ReturnType<typeof scenario>>;
  before(async () => {
    [n, anvil] = await Promise.all([startTestNode(), startAnvil()]);
    ours = await scenario(n);
    theirs = await scenario(anvil);
  });
  after(async () => {
    await n?.close();
    await anvil?.close();
  });

  test('deterministic answers are identical', () => {
    assert.equal(ours.api, 8);
    for (const k of ['api', 'hasCode', 'internal', 'txError', 'trace'] as const) assert.deepEqual(ours[k], theirs[k], k);
    assert.deepEqual(ours.internal.map((o: { type: number }) => o.type), [0, 2], 'the value sent in, then the creation');
    assert.match(ours.txError[0], /^0x08c379a0/);
  });

  test('block details, block transactions and headers have anvil shape and content', () => {
    for (const d of [ours.details, ours.detailsByHash]) {
      assert.deepEqual(keys(d), keys(theirs.details));
      assert.deepEqual(keys(d.block), keys(theirs.details.block));
      assert.equal(d.block.transactionCount, 1);
      assert.deepEqual(d.issuance, theirs.details.issuance);
    }
    const fee = BigInt(ours.nested.gasUsed) * BigInt(ours.nested.effectiveGasPrice);
    assert.equal(BigInt(ours.details.totalFees), fee);
    assert.deepEqual(keys(ours.blockTxs), keys(theirs.blockTxs));
    assert.deepEqual(keys(ours.blockTxs.fullblock), keys(theirs.blockTxs.fullblock));
    assert.equal(ours.blockTxs.fullblock.transactions[0].hash, ours.nested.transactionHash);
    assert.equal(ours.blockTxs.receipts[0].transactionHash, ours.nested.transactionHash);
    assert.deepEqual(keys(ours.header), keys(theirs.header));
    assert.equal(ours.header.hash, ours.nested.blockHash);
  });

  test('address searches find the same transactions, internal calls and creations included', () => {
    for (const k of ['before', 'after', 'calleeHistory'] as const) {
      assert.deepEqual(nonces(ours[k]), nonces(theirs[k]), k);
      assert.equal(ours[k].firstPage, theirs[k].firstPage, `${k}.firstPage`);
      assert.equal(ours[k].lastPage, theirs[k].lastPage, `${k}.lastPage`);
      assert.equal(ours[k].receipts.length, ours[k].txs.length);
      assert.equal(ours[k].receipts[0].timestamp, ours[k].txs[0].blockTimestamp);
    }
    assert.deepEqual(nonces(ours.calleeHistory), ['0x4', '0x2', '0x0'], 'its failing call, the internal call, its deployment');
    assert.equal(ours.bySender[0], ours.nested.transactionHash);
    assert.equal(ours.bySender[1], null);
    assert.deepEqual(ours.creators.map((c: { creator: string } | null) => c?.creator ?? null), theirs.creators.map((c: { creator: string } | null) => c?.creator ?? null));
    assert.equal(ours.creators[2].creator, ours.caller.toLowerCase(), 'a contract-created contract names its creator contract');
  });

  test('bad params are -32602 naming the argument', async () => {
    const r = await n.raw('ots_searchTransactionsBefore', ['0x12', 0, 10]);
    assert.equal(r.error?.code, -32602);
    assert.match(r.error!.message, /argument 0/);
    const missing = await n.raw('ots_getTransactionError', ['0x' + '11'.repeat(32)]);
    assert.equal(missing.error?.code, -32000);
  });
});
