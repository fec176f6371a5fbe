/**
 * eth_simulateV1 through viem's simulateBlocks / simulateCalls and raw JSON-RPC: calls that see
 * each other, block and state overrides, validation errors, transfer tracing, gaps, and a chain
 * left untouched.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPublicClient, encodeFunctionData, http, parseEther, type Address, type Hex } from 'viem';
import { ADDRS, artifact, startTestNode, type TestNode } from '../support/node.js';
import { parseGenesisFile } from '../../src/chain/core/genesisFile.js';
import { genesisSettings } from '../../src/lib/genesis.js';

const [A0, A1] = ADDRS as readonly Address[];
const POOR = '0x00000000000000000000000000000000000005e1' as Address;

describe('eth_simulateV1', () => {
  let n: TestNode;
  let storage: Address;
  let caller: Address;
  let client: ReturnType<typeof createPublicClient>;
  const deploy = async (name: string) => (await n.rpc('eth_getTransactionReceipt', [await n.rpc('eth_sendTransaction', [{ from: A0, data: artifact(name).bytecode }])])).contractAddress as Address;

  before(async () => {
    n = await startTestNode();
    storage = await deploy('Storage');
    caller = await deploy('Caller');
    client = createPublicClient({ transport: http(n.url) });
  });
  after(async () => n?.close());

  test('viem simulateBlocks: calls see each other, block and state overrides apply, nothing is kept', async () => {
    const head = await n.rpc('eth_blockNumber');
    const balance = await n.rpc('eth_getBalance', [A1, 'latest']);
    const abi = artifact('Storage').abi;
    const blocks = await client.simulateBlocks({
      blocks: [
        {
          stateOverrides: [{ address: POOR, balance: parseEther('2') }],
          calls: [
            { account: A0, to: storage, data: encodeFunctionData({ abi, functionName: 'set', args: [42n] }) },
            { account: A0, to: storage, data: encodeFunctionData({ abi, functionName: 'number' }) },
            { account: POOR, to: A1, value: parseEther('1') },
          ],
        },
        { blockOverrides: { time: 4_000_000_000n }, calls: [{ account: A0, to: storage, data: encodeFunctionData({ abi, functionName: 'number' }) }] },
      ],
    });
    assert.equal(blocks.length, 2);
    const [first, second] = blocks as [(typeof blocks)[0], (typeof blocks)[0]];
    assert.equal(first.number, BigInt(head) + 1n);
    assert.deepEqual(first.calls.map((c) => c.status), ['success', 'success', 'success']);
    assert.equal(first.calls[1]!.data, '0x' + (42n).toString(16).padStart(64, '0'));
    assert.equal(second.number, BigInt(head) + 2n);
    assert.equal(second.timestamp, 4_000_000_000n);
    assert.equal(second.parentHash, first.hash);
    assert.equal(second.calls[0]!.data, '0x' + (42n).toString(16).padStart(64, '0'), 'state carries over between blocks');
    // A block asked for at head+10 comes after empty blocks filling the gap (as geth answers).
    const gap = await n.rpc('eth_simulateV1', [{ blockStateCalls: [{ blockOverrides: { number: '0x' + (BigInt(head) + 10n).toString(16) }, calls: [{ from: A0, to: A1 }] }] }]);
    assert.deepEqual(gap.map((b: { number: string }) => BigInt(b.number)), Array.from({ length: 10 }, (_, i) => BigInt(head) + 1n + BigInt(i)));
    assert.deepEqual(gap.map((b: { calls: unknown[] }) => b.calls.length), [0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    assert.equal(await n.rpc('eth_blockNumber'), head);
    assert.equal(await n.rpc('eth_getBalance', [A1, 'latest']), balance);
    assert.equal(await n.rpc('eth_getStorageAt', [storage, '0x0', 'latest']), '0x' + '0'.repeat(64));
  });

  test('movePrecompileToAddress moves a precompile for its block only (and in eth_call for the call); moving a non-precompile is refused', async () => {
    const ID = '0x0000000000000000000000000000000000000004';
    const TO = '0x0000000000000000000000000000000000123456';
    const calls = [
      { from: A0, to: TO, input: '0x1234' },
      { from: A0, to: ID, input: '0x1234' },
    ];
    const [moved, after] = await n.rpc('eth_simulateV1', [{ blockStateCalls: [{ stateOverrides: { [ID]: { movePrecompileToAddress: TO } }, calls }, { calls }] }]);
    assert.deepEqual(moved.calls.map((c: any) => c.returnData), ['0x1234', '0x'], 'the identity runs at its new address, not at 0x04');
    assert.deepEqual(after.calls.map((c: any) => c.returnData), ['0x', '0x1234'], 'the next block has the fork\'s precompiles again');
    assert.equal(await n.rpc('eth_call', [{ to: ID, data: '0x1234' }, 'latest']), '0x1234', 'the chain is untouched');
    // eth_call takes the same override, for that call only.
    assert.equal(await n.rpc('eth_call', [{ to: TO, data: '0x1234' }, 'latest', { [ID]: { movePrecompileToAddress: TO } }]), '0x1234');
    assert.equal(await n.rpc('eth_call', [{ to: ID, data: '0x1234' }, 'latest', { [ID]: { movePrecompileToAddress: TO } }]), '0x');
    assert.equal(await n.rpc('eth_call', [{ to: ID, data: '0x1234' }, 'latest', { [ID]: { code: '0x' } }]), '0x', 'an overridden precompile address is no longer one');
    assert.equal(await n.rpc('eth_call', [{ to: TO, data: '0x1234' }, 'latest']), '0x');
    assert.equal(await n.rpc('eth_call', [{ to: ID, data: '0x1234' }, 'latest', { [A1]: { balance: '0x1' } }]), '0x1234');
    const notPrecompile = await n.raw('eth_simulateV1', [{ blockStateCalls: [{ stateOverrides: { [A1]: { movePrecompileToAddress: TO } } }] }]);
    assert.equal(notPrecompile.error?.code, -32000);
    assert.match(notPrecompile.error?.message ?? '', /^account 0x[0-9a-fA-F]{40} is not a precompile$/);
    const taken = await n.raw('eth_simulateV1', [{ blockStateCalls: [{ stateOverrides: { [ID]: { movePrecompileToAddress: TO }, [TO]: { balance: '0x1' } } }] }]);
    assert.match(taken.error?.message ?? '', /^account 0x0{34}123456 is already overridden$/);
  });

  test('before the merge a simulated block keeps its parent\'s difficulty and pays the block reward; from the merge difficulty is 0; blob gas is counted, at the blobBaseFee override', async () => {
    const forks = ['homestead', 'eip150', 'eip155', 'eip158', 'byzantium', 'constantinople', 'petersburg', 'istanbul', 'berlin', 'london'];
    const config = { chainId: 984, ...Object.fromEntries(forks.map((f) => [`${f}Block`, 0])) };
    const file = parseGenesisFile(JSON.stringify({ config, difficulty: '0x20000', gasLimit: '0x1c9c380', alloc: {} }));
    const london = await startTestNode({ chain: genesisSettings(file, undefined) });
    try {
      const parent = await london.rpc('eth_getBlockByNumber', ['latest', false]);
      assert.equal(parent.difficulty, '0x20000');
      const [sim] = await london.rpc('eth_simulateV1', [{ blockStateCalls: [{}] }]);
      assert.equal(sim.difficulty, '0x20000');
      assert.notEqual(sim.stateRoot, parent.stateRoot, 'the miner got the block reward (a genesis file\'s chain pays it)');
    } finally {
      await london.close();
    }
    const [merged] = await n.rpc('eth_simulateV1', [{ blockStateCalls: [{}] }]);
    assert.equal(merged.difficulty, '0x0');
    assert.equal(merged.blobGasUsed, '0x0');
    const hashes = ['0x010657f37554c781402a22917dee2f75def7ab966d7b770905398eba3c444014', '0x01' + '11'.repeat(31)];
    const [blobs] = await n.rpc('eth_simulateV1', [{ blockStateCalls: [{ calls: [{ from: A0, to: A1, blobVersionedHashes: hashes }] }] }]);
    assert.equal(blobs.calls[0].status, '0x1');
    assert.equal(blobs.blobGasUsed, '0x40000', 'two blobs of 2^17 blob gas');
    // The blobBaseFee block override is what BLOBBASEFEE reads and what blob gas costs.
    const reader = '0x00000000000000000000000000000000000b10bf';
    const [fee] = await n.rpc('eth_simulateV1', [{ blockStateCalls: [{ blockOverrides: { blobBaseFee: '0x7' }, stateOverrides: { [reader]: { code: '0x4a5f5260205ff3' } }, calls: [{ from: A0, to: reader }] }] }]);
    assert.equal(fee.calls[0].returnData, '0x' + '7'.padStart(64, '0'));
  });

  test('reverts and EVM errors are per-call results with the spec codes', async () => {
    const caller2 = artifact('Caller').abi;
    const callee = await deploy('Callee');
    const [block] = await n.rpc('eth_simulateV1', [
      {
        blockStateCalls: [
          {
            calls: [
              { from: A0, to: callee, input: encodeFunctionData({ abi: artifact('Callee').abi, functionName: 'fail' }) },
              { from: A0, to: caller, input: encodeFunctionData({ abi: caller2, functionName: 'tryFail', args: [callee] }), gas: '0x5800' },
              { from: A0, to: A1, value: '0x1' },
            ],
          },
        ],
      },
    ]);
    const [reverted, oog, ok] = block.calls;
    assert.equal(reverted.status, '0x0');
    assert.equal(reverted.error.code, 3);
    assert.equal(reverted.error.message, 'execution reverted: callee failed');
    assert.match(reverted.error.data, /^0x[0-9a-f]{8,}/);
    assert.equal(reverted.returnData, '0x', "a failed call's output is its error's data, as geth gives it");
    assert.equal(oog.status, '0x0');
    assert.equal(oog.error.code, -32015);
    assert.equal(oog.error.message, 'out of gas', "geth's words");
    assert.equal(ok.status, '0x1');
    assert.deepEqual(ok.logs, []);
  });

  test('traceTransfers: ether transfers as Transfer logs of 0xeeee…, in order with real logs', async () => {
    const [block] = await n.rpc('eth_simulateV1', [
      {
        traceTransfers: true,
        blockStateCalls: [{ calls: [{ from: A0, to: caller, value: '0x5', input: encodeFunctionData({ abi: artifact('Caller').abi, functionName: 'deployPlain' }) }] }],
      },
    ]);
    const logs = block.calls[0].logs as Array<{ address: string; topics: Hex[]; data: Hex; logIndex: string }>;
    assert.equal(logs.length, 3);
    const pad = (a: string) => '0x' + a.slice(2).toLowerCase().padStart(64, '0');
    assert.equal(logs[0].address, '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee');
    assert.deepEqual(logs[0].topics.slice(1), [pad(A0), pad(caller)]);
    assert.equal(BigInt(logs[0].data), 5n);
    assert.equal(logs[1].address, '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee');
    assert.equal(logs[1].topics[1], pad(caller));
    assert.equal(logs[2].address, caller.toLowerCase(), 'Deployed(child) after the child was created');
    assert.equal(logs[2].data, logs[1].topics[2], 'the event names the child the value went to');
    assert.deepEqual(logs.map((l) => l.logIndex), ['0x0', '0x1', '0x2']);
  });

  test('validation: nonce, funds, base fee and order errors are the spec codes; full transactions on request', async () => {
    const err = async (payload: unknown) => (await n.raw('eth_simulateV1', [payload])).error;
    const nonce = BigInt(await n.rpc('eth_getTransactionCount', [A0, 'latest']));
    assert.equal((await err({ validation: true, blockStateCalls: [{ calls: [{ from: A0, to: A1, nonce: '0x' + (nonce - 1n).toString(16) }] }] }))?.code, -38010);
    assert.equal((await err({ validation: true, blockStateCalls: [{ calls: [{ from: A0, to: A1, nonce: '0x' + (nonce + 3n).toString(16) }] }] }))?.code, -38011);
    assert.equal((await err({ validation: true, blockStateCalls: [{ calls: [{ from: POOR, to: A1, value: '0x1', maxFeePerGas: '0x174876e800' }] }] }))?.code, -38014);
    // Validated, a call that names no price pays nothing: less than the base fee, as in geth.
    assert.equal((await err({ validation: true, blockStateCalls: [{ calls: [{ from: A0, to: A1 }] }] }))?.code, -38012);
    // Without validation the sender must still hold the value it sends.
    assert.equal((await err({ blockStateCalls: [{ calls: [{ from: POOR, to: A1, value: '0x1' }] }] }))?.code, -38014);
    assert.equal((await err({ validation: true, blockStateCalls: [{ calls: [{ from: A0, to: A1, maxFeePerGas: '0x1' }] }] }))?.code, -38012);
    assert.equal((await err({ blockStateCalls: [{ calls: [{ from: A0, to: A1, gas: '0x100' }] }] }))?.code, -38013);
    assert.equal((await err({ blockStateCalls: [{ blockOverrides: { number: '0x1' } }] }))?.code, -38020);
    assert.equal((await err({ blockStateCalls: [{}, { blockOverrides: { time: '0x1' } }] }))?.code, -38021);
    assert.equal((await err({ blockStateCalls: [] }))?.code, -32602);
    assert.equal((await err({ blockStateCalls: [{ calls: [{ from: 'nope' }] }] }))?.code, -32602);
    // Without validation a poor sender still runs, as eth_call does.
    const [ok] = await n.rpc('eth_simulateV1', [{ returnFullTransactions: true, blockStateCalls: [{ calls: [{ from: POOR, to: A1 }] }] }]);
    assert.equal(ok.calls[0].status, '0x1');
    assert.equal(ok.transactions[0].from, POOR);
    assert.equal(ok.baseFeePerGas, '0x0', 'no base fee without validation');
  });

  test('log numbers count every log the block emitted, those of failed calls and frames included (geth\'s)', async () => {
    // LOGFAIL logs then hits INVALID; LOGGER logs and stops (21000 + 6 + 375 gas: one less fails at its LOG0, which then emits nothing).
    const LOGFAIL = '0x00000000000000000000000000000000000010f0';
    const LOGGER = '0x00000000000000000000000000000000000010f1';
    const run = async (traceTransfers: boolean) => {
      const [block] = await n.rpc('eth_simulateV1', [
        {
          traceTransfers,
          returnFullTransactions: true,
          blockStateCalls: [
            {
              stateOverrides: { [LOGFAIL]: { code: '0x60006000a0fe' }, [LOGGER]: { code: '0x60006000a000' } },
              calls: [
                { from: A0, to: LOGFAIL, value: '0x1', gas: '0x7530' },
                { from: A0, to: LOGGER, gas: '0x5384' },
                { from: A0, to: LOGGER },
              ],
            },
          ],
        },
      ]);
      // A call whose frame failed runs again to count its logs: its effects are still taken once.
      const nonces = block.transactions.map((t: { nonce: string }) => BigInt(t.nonce));
      assert.deepEqual(nonces, [nonces[0], nonces[0] + 1n, nonces[0] + 2n]);
      return block.calls as Array<{ status: string; logs: Array<{ address: string; logIndex: string }> }>;
    };
    const plain = await run(false);
    assert.deepEqual(plain.map((c) => c.status), ['0x0', '0x0', '0x1']);
    assert.deepEqual(plain.map((c) => c.logs.length), [0, 0, 1]);
    assert.equal(plain[2]!.logs[0]!.logIndex, '0x1', 'the failed call\'s log is counted, the LOG0 that ran out of gas is not');
    // Traced, the failed call's transfer log is counted as well.
    const traced = await run(true);
    assert.deepEqual(traced.map((c) => c.logs.length), [0, 0, 1]);
    assert.equal(traced[2]!.logs[0]!.logIndex, '0x2');
    assert.equal(traced[2]!.logs[0]!.address, LOGGER);
    // A call that names no gas gets the rest of the block: a failing one spends it all, and a next call naming gas is past the block's limit (-38015, as geth).
    const full = await n.raw('eth_simulateV1', [{ blockStateCalls: [{ stateOverrides: { [LOGFAIL]: { code: '0x60006000a0fe' } }, calls: [{ from: A0, to: LOGFAIL }, { from: A0, to: A1, gas: '0x5208' }] }] }]);
    assert.equal(full.error?.code, -38015);
  });

  test('a sender nonce of 2^64-1 runs without validation and wraps to 0 (geth\'s); validated, and as a real transaction, it is refused', async () => {
    const SENDER = '0x00000000000000000000000000000000000010f2';
    const calls = [{ from: SENDER, to: A1 }, { from: SENDER, to: A1 }, { from: SENDER, to: A1 }];
    const overrides = { [SENDER]: { nonce: '0xffffffffffffffff' } };
    const [block] = await n.rpc('eth_simulateV1', [{ returnFullTransactions: true, blockStateCalls: [{ stateOverrides: overrides, calls }] }]);
    assert.deepEqual(block.calls.map((c: { status: string }) => c.status), ['0x1', '0x1', '0x1']);
    assert.deepEqual(block.transactions.map((t: { nonce: string }) => t.nonce), ['0xffffffffffffffff', '0x0', '0x1']);
    assert.equal(new Set(block.transactions.map((t: { hash: string }) => t.hash)).size, 3);
    // No prevRandao override: zero, whatever the parent's.
    assert.equal(block.mixHash, '0x' + '0'.repeat(64));
    const validated = await n.raw('eth_simulateV1', [{ validation: true, blockStateCalls: [{ stateOverrides: overrides, calls: [{ from: SENDER, to: A1, nonce: '0xffffffffffffffff', maxFeePerGas: '0x174876e800' }] }] }]);
    assert.equal(validated.error?.code, -32603);
    assert.match(validated.error?.message ?? '', /nonce has max value/);
    const sent = await n.raw('eth_sendTransaction', [{ from: A0, to: A1, nonce: '0xffffffffffffffff' }]);
    assert.ok(sent.error, 'a transaction with nonce 2^64-1 is refused');
  });

  test('viem simulateCalls', async () => {
    const { results } = await client.simulateCalls({ account: A0, calls: [{ to: A1, value: 1n }, { to: storage, abi: artifact('Storage').abi, functionName: 'number' }] });
    assert.deepEqual(results.map((r) => r.status), ['success', 'success']);
  });
});
