/**
 * web3.js 4 against node-rpc: over HTTP to a `node-rpc dev` server on a free port, and on
 * createNode's EIP-1193 provider in the same process. The same checks on both: chain id, accounts
 * and balances, a transfer and its receipt, a contract deployed and called, its events (in the
 * receipt, by getPastEvents with an indexed filter, by eth_getLogs), and revert reasons as web3's
 * own error types carry them (a call: ContractExecutionError; a sent transaction:
 * TransactionRevertInstructionError; a custom error decoded by name).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ContractExecutionError, TransactionRevertInstructionError, Web3 } from 'web3';
import { createNode } from '../../src/lib/index.js';
import type { Node } from '../../src/lib/types.js';
import { ADDRS, artifact, startTestNode, type TestNode } from '../support/node.js';

const OTHER = '0x00000000000000000000000000000000000000f2';
const TAG = `0x${'ab'.repeat(32)}`;

/** Every check, on one web3 instance; `chainId` is the node's. */
function clientChecks(web3: () => Web3, chainId: bigint): void {
  test('chain id, accounts, balances, block number', async () => {
    const w = web3();
    assert.equal(await w.eth.getChainId(), chainId);
    assert.equal(await w.eth.net.getId(), chainId);
    const accounts = await w.eth.getAccounts();
    assert.equal(accounts.length, 10);
    assert.deepEqual(accounts.slice(0, 3).map((a) => a.toLowerCase()), ADDRS.map((a) => a.toLowerCase()));
    assert.equal(await w.eth.getBalance(ADDRS[1]), 10_000n * 10n ** 18n);
    assert.equal(typeof (await w.eth.getBlockNumber()), 'bigint');
  });

  test('a transfer: sendTransaction resolves to the receipt; the balance moved', async () => {
    const w = web3();
    const before = await w.eth.getBalance(OTHER);
    const receipt = await w.eth.sendTransaction({ from: ADDRS[0], to: OTHER, value: 12345n });
    assert.equal(receipt.status, 1n);
    assert.equal(receipt.from.toLowerCase(), ADDRS[0].toLowerCase());
    assert.equal(receipt.to?.toLowerCase(), OTHER);
    assert.equal(receipt.gasUsed, 21_000n);
    assert.equal(await w.eth.getBalance(OTHER), before + 12345n);
    const tx = await w.eth.getTransaction(receipt.transactionHash);
    assert.equal(tx.value, 12345n);
    assert.equal(tx.blockNumber, receipt.blockNumber);
    const again = await w.eth.getTransactionReceipt(receipt.transactionHash);
    assert.equal(again.blockHash, receipt.blockHash);
  });

  test('a contract: deploy, call, send, events in the receipt, getPastEvents, eth_getLogs', async () => {
    const w = web3();
    const a = artifact('Events');
    const events = await new w.eth.Contract(a.abi).deploy({ data: a.bytecode }).send({ from: ADDRS[0] });
    const address = events.options.address!;
    assert.match(address, /^0x[0-9a-fA-F]{40}$/);
    assert.equal(await w.eth.getCode(address), a.deployedBytecode);

    const receipt = await events.methods.ping!(7, TAG, 'hello').send({ from: ADDRS[1] });
    const ping = receipt.events!.Ping!;
    assert.equal(ping.returnValues.id, 7n);
    assert.equal(ping.returnValues.tag, TAG);
    assert.equal(ping.returnValues.note, 'hello');
    assert.equal(String(ping.returnValues.from).toLowerCase(), ADDRS[1].toLowerCase());
    await events.methods.ping!(8, TAG, 'again').send({ from: ADDRS[0] });
    await events.methods.pong!(99).send({ from: ADDRS[0] });

    const pings = await events.getPastEvents('Ping', { filter: { id: 8 }, fromBlock: 0 });
    assert.equal(pings.length, 1);
    assert.equal((pings[0] as unknown as { returnValues: { note: string } }).returnValues.note, 'again');
    const all = await events.getPastEvents('allEvents', { fromBlock: 0 });
    assert.deepEqual(all.map((e) => (e as { event: string }).event), ['Ping', 'Ping', 'Pong']);
    const logs = await w.eth.getPastLogs({ address, fromBlock: 0 });
    assert.equal(logs.length, 3);

    const r = artifact('Reverter');
    const reverter = await new w.eth.Contract(r.abi).deploy({ data: r.bytecode }).send({ from: ADDRS[0] });
    assert.equal(await reverter.methods.counter!().call(), 0n);
    await reverter.methods.needsGas!(0).send({ from: ADDRS[0] });
    assert.equal(await reverter.methods.value!().call(), 1n);
  });

  test('revert reasons through web3\'s error types: a call, a sent transaction, a custom error', async () => {
    const w = web3();
    const r = artifact('Reverter');
    const reverter = await new w.eth.Contract(r.abi).deploy({ data: r.bytecode }).send({ from: ADDRS[0] });

    await assert.rejects(reverter.methods.revertWithReason!().call(), (err: unknown) => {
      assert.ok(err instanceof ContractExecutionError, String(err));
      const cause = err.cause as { message: string; data: string };
      assert.equal(cause.message, 'execution reverted: nope: reason');
      assert.match(cause.data, /^0x08c379a0/);
      return true;
    });

    await assert.rejects(reverter.methods.revertCustom!().call({ from: ADDRS[2] }), (err: unknown) => {
      assert.ok(err instanceof ContractExecutionError, String(err));
      const cause = err.cause as { errorName?: string; errorArgs?: Record<string, unknown> };
      assert.equal(cause.errorName, 'Unauthorized');
      assert.equal(String(cause.errorArgs?.caller).toLowerCase(), ADDRS[2].toLowerCase());
      return true;
    });

    // A transaction: web3 estimates the gas first, and the estimate carries the reason.
    await assert.rejects(async () => void (await reverter.methods.revertWithReason!().send({ from: ADDRS[0] })), (err: unknown) => {
      assert.ok(err instanceof ContractExecutionError || err instanceof TransactionRevertInstructionError, String(err));
      const text = JSON.stringify(err);
      assert.match(text, /nope: reason/);
      return true;
    });

    // With a gas limit given there is no estimate: the transaction is mined and fails; with
    // handleRevert the contract asks the node for the reason (eth_call of the same transaction).
    reverter.handleRevert = true;
    await assert.rejects(async () => void (await reverter.methods.revertWithReason!().send({ from: ADDRS[0], gas: '100000' })), (err: unknown) => {
      assert.ok(err instanceof TransactionRevertInstructionError, String(err));
      assert.equal(err.reason, 'execution reverted: nope: reason');
      assert.equal(err.signature, '0x08c379a0');
      assert.equal((err.receipt as { status: bigint } | undefined)?.status, 0n, 'mined, and failed');
      return true;
    });
  });
}

describe('web3.js over HTTP (node-rpc dev on a free port)', () => {
  let n: TestNode;
  let web3: Web3;
  before(async () => {
    n = await startTestNode();
    web3 = new Web3(n.url);
    web3.transactionPollingInterval = 10;
    web3.transactionReceiptPollingInterval = 10;
  });
  after(() => n.close());
  clientChecks(() => web3, 984n);
});

describe('web3.js on createNode\'s EIP-1193 provider', () => {
  let node: Node;
  let web3: Web3;
  before(async () => {
    node = await createNode({ chainId: 31337 });
    web3 = new Web3(node.provider);
    web3.transactionPollingInterval = 10;
    web3.transactionReceiptPollingInterval = 10;
  });
  after(() => node.close());
  clientChecks(() => web3, 31337n);
});
