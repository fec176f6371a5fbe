/**
 * trace_* (OpenEthereum traces) compared field by field with anvil's for the same transactions
 * (plain transfer, nested call, caught revert, top-level revert, deploy, create from a contract
 * with value), plus trace_filter, and the replay methods anvil does not serve checked for shape
 * and for agreeing with trace_transaction.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Interface } from 'ethers';
import { startAnvil, type Anvil } from '../support/anvil.js';
import { ADDRS, artifact, startTestNode, type TestNode, waitForReceipt } from '../support/node.js';

interface Rpc {
  rpc(method: string, params?: unknown[]): Promise<any>;
}

const caller = new Interface(artifact('Caller').abi);

/** The same transactions on a node; returns their hashes by name. */
async function scenario(n: Rpc): Promise<Record<string, string>> {
  const send = async (tx: object) => n.rpc('eth_sendTransaction', [{ from: ADDRS[0], ...tx }]);
  const receipt = (hash: string) => waitForReceipt(n, hash);
  const deployCallee = await send({ data: artifact('Callee').bytecode });
  const callee = (await receipt(deployCallee)).contractAddress;
  const deployCaller = await send({ data: artifact('Caller').bytecode });
  const c = (await receipt(deployCaller)).contractAddress;
  const mined = async (hash: Promise<string>) => (await receipt(await hash)).transactionHash as string;
  return {
    deployCallee,
    transfer: await mined(send({ to: ADDRS[1], value: '0x1' })),
    nested: await mined(send({ to: c, data: caller.encodeFunctionData('callStore', [callee, 5n]) })),
    caught: await mined(send({ to: c, data: caller.encodeFunctionData('tryFail', [callee]) })),
    reverted: await mined(send({ to: callee, data: new Interface(artifact('Callee').abi).encodeFunctionData('fail'), gas: '0x186a0' })),
    create: await mined(send({ to: c, value: '0x7', data: caller.encodeFunctionData('deployPlain') })),
    create2: await mined(send({ to: c, value: '0x3', data: caller.encodeFunctionData('deploy', ['0x' + '11'.repeat(32)]) })),
  };
}

/** Block and transaction hashes differ between the nodes (timestamps): compare everything else. */
const located = (traces: Array<Record<string, unknown>>) => traces.map(({ blockHash, transactionHash, ...rest }) => (void blockHash, void transactionHash, rest));

describe('trace_* against anvil', () => {
  let n: TestNode;
  let anvil: Anvil;
  let ours: Record<string, string>;
  let theirs: Record<string, string>;
  before(async () => {
    [n, anvil] = await Promise.all([startTestNode(), startAnvil()]);
    ours = await scenario(n);
    theirs = await scenario(anvil);
  });
  after(async () => {
    await n?.close();
    await anvil?.close();
  });

  for (const name of ['deployCallee', 'transfer', 'nested', 'caught', 'reverted', 'create', 'create2']) {
    test(`trace_transaction: ${name}`, async () => {
      const [a, b] = await Promise.all([n.rpc('trace_transaction', [ours[name]]), anvil.rpc('trace_transaction', [theirs[name]])]);
      assert.ok(a.length > 0);
      assert.deepEqual(located(a), located(b));
      for (const t of a) assert.equal(t.transactionHash, ours[name]);
    });
  }

  test('trace_block and trace_filter match anvil', async () => {
    const receipt = await n.rpc('eth_getTransactionReceipt', [ours.nested]);
    const block = BigInt(receipt.blockNumber);
    const [a, b] = await Promise.all([n.rpc('trace_block', ['0x' + block.toString(16)]), anvil.rpc('trace_block', ['0x' + block.toString(16)])]);
    assert.deepEqual(located(a), located(b));
    const head = await n.rpc('eth_blockNumber');
    const filters = [
      { fromBlock: '0x1', toBlock: head },
      { fromBlock: '0x1', toBlock: head, toAddress: [ADDRS[1]] },
      { fromBlock: '0x1', toBlock: head, fromAddress: [ADDRS[0]], after: 2, count: 3 },
    ];
    for (const f of filters) {
      const [x, y] = await Promise.all([n.rpc('trace_filter', [f]), anvil.rpc('trace_filter', [f])]);
      assert.ok(x.length > 0, JSON.stringify(f));
      assert.deepEqual(located(x), located(y), JSON.stringify(f));
    }
    assert.equal(await n.rpc('trace_transaction', ['0x' + '12'.repeat(32)]), null);
    assert.equal(await n.rpc('trace_block', ['0xffffff']), null);
  });

  test('trace_replayTransaction, trace_replayBlockTransactions and trace_call: trace and stateDiff', async () => {
    const replay = await n.rpc('trace_replayTransaction', [ours.nested, ['trace', 'stateDiff']]);
    const mined = await n.rpc('trace_transaction', [ours.nested]);
    assert.deepEqual(replay.trace, mined.map(({ blockHash, blockNumber, transactionHash, transactionPosition, ...rest }: Record<string, unknown>) => (void blockHash, void blockNumber, void transactionHash, void transactionPosition, rest)));
    assert.equal(replay.output, '0x' + (10n).toString(16).padStart(64, '0'));
    assert.equal(replay.vmTrace, null);
    assert.equal(replay.transactionHash, ours.nested);
    const sender = replay.stateDiff[ADDRS[0].toLowerCase()];
    assert.equal(sender.code, '=');
    assert.ok(sender.nonce['*'], 'the sender nonce changed');
    assert.equal(BigInt(sender.nonce['*'].to) - BigInt(sender.nonce['*'].from), 1n);
    const calleeAddr = mined[1].action.to;
    assert.deepEqual(replay.stateDiff[calleeAddr].storage['0x' + '0'.repeat(64)], { '*': { from: '0x' + '0'.repeat(64), to: '0x' + '5'.padStart(64, '0') } });

    const onlyDiff = await n.rpc('trace_replayTransaction', [ours.create, ['stateDiff']]);
    assert.deepEqual(onlyDiff.trace, []);
    const born = Object.values(onlyDiff.stateDiff).find((d: any) => d.balance['+'] === '0x7') as any;
    assert.ok(born, 'the created child appears with "+" fields');
    assert.match(born.code['+'], /^0x60/);

    const receipt = await n.rpc('eth_getTransactionReceipt', [ours.create]);
    const block = await n.rpc('trace_replayBlockTransactions', [receipt.blockNumber, ['trace']]);
    assert.equal(block.length, 1);
    assert.equal(block[0].transactionHash, ours.create);
    assert.equal(block[0].stateDiff, null);

    const call = await n.rpc('trace_call', [{ from: ADDRS[0], to: mined[0].action.to, data: caller.encodeFunctionData('callStore', [calleeAddr, 9n]) }, ['trace'], 'latest']);
    assert.equal(call.trace.length, 2);
    assert.equal(call.trace[1].traceAddress[0], 0);
    assert.equal(call.output, '0x' + (18n).toString(16).padStart(64, '0'));
    const bad = await n.raw('trace_call', [{ to: ADDRS[1] }, ['trace', 'everything']]);
    assert.equal(bad.error?.code, -32602);
    assert.match(bad.error!.message, /unknown trace type "everything"/);
  });
});
