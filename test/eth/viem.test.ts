import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  defineChain,
  encodeFunctionData,
  http,
  parseEther,
  type Address,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ADDRS, KEYS, artifact, startTestNode, type TestNode } from '../support/node.js';

const chain = defineChain({
  id: 984,
  name: 'node-rpc',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1'] } },
});

describe('viem 2 against a live node', () => {
  let n: TestNode;
  let pub: ReturnType<typeof createPublicClient>;
  let wallet: ReturnType<typeof createWalletClient>;
  const account = privateKeyToAccount(KEYS[0]);

  async function deploy(name: string, args: unknown[] = []): Promise<Address> {
    const a = artifact(name);
    const hash = await wallet.deployContract({ abi: a.abi, bytecode: a.bytecode, args, account, chain });
    const r = await pub.waitForTransactionReceipt({ hash });
    return r.contractAddress!;
  }

  before(async () => {
    n = await startTestNode();
    pub = createPublicClient({ chain, transport: http(n.url) });
    wallet = createWalletClient({ chain, transport: http(n.url), account });
  });
  after(() => n.close());

  test('deploy, transfer, read and decode the event', async () => {
    const abi = artifact('Token').abi;
    const token = await deploy('Token', ['Test', 'TST', parseEther('10')]);
    const hash = await wallet.writeContract({ address: token, abi, functionName: 'transfer', args: [ADDRS[1], 5n], account, chain });
    const receipt = await pub.getTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    const ev = decodeEventLog({ abi, ...receipt.logs[0] }) as { eventName: string };
    assert.equal(ev.eventName, 'Transfer');
    assert.equal(await pub.readContract({ address: token, abi, functionName: 'balanceOf', args: [ADDRS[1]] }), 5n);
    const tx = await pub.getTransaction({ hash });
    assert.equal(tx.from.toLowerCase(), ADDRS[0].toLowerCase());
    assert.equal(tx.blockNumber, receipt.blockNumber);
  });

  test('simulateContract surfaces the revert reason, custom error and panic', async () => {
    const abi = artifact('Reverter').abi;
    const reverter = await deploy('Reverter');
    const failure = async (functionName: string, args: unknown[] = []) => {
      try {
        await pub.simulateContract({ address: reverter, abi, functionName, args, account });
      } catch (err) {
        return err as BaseError;
      }
      return assert.fail('expected a revert');
    };
    const decoded = (err: BaseError) => err.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
    assert.match((await failure('revertWithReason')).shortMessage, /nope: reason/);
    assert.equal(decoded(await failure('revertCustom'))?.data?.errorName, 'Unauthorized');
    assert.equal(decoded(await failure('revertCustom'))?.data?.args?.[0], ADDRS[0]);
    const panic = decoded(await failure('panicDivide', [0n]));
    assert.equal(panic?.data?.errorName, 'Panic');
    assert.equal(panic?.data?.args?.[0], 0x12n);
    const empty = await n.raw('eth_call', [{ to: reverter, data: encodeFunctionData({ abi, functionName: 'revertEmpty' }) }]);
    assert.deepEqual(empty.error, { code: -32000, message: 'execution reverted', data: '0x' });
    const withReason = await n.raw('eth_call', [{ to: reverter, data: encodeFunctionData({ abi, functionName: 'revertWithReason' }) }]);
    assert.equal(withReason.error!.code, -32000);
    assert.equal(withReason.error!.message, 'execution reverted: nope: reason');
    assert.match(String(withReason.error!.data), /^0x08c379a0/);
  });

  test('eth_estimateGas is exact for contracts that check gasleft(), across the 63/64 rule', async () => {
    const reverter = await deploy('Reverter');
    const forwarder = await deploy('GasForwarder');
    const fabi = artifact('GasForwarder').abi;
    const data = encodeFunctionData({ abi: fabi, functionName: 'forward', args: [reverter, 100_000n] });
    const estimate = await pub.estimateGas({ account, to: forwarder, data });
    const callWith = (gas: bigint) => n.raw('eth_call', [{ from: ADDRS[0], to: forwarder, data, gas: `0x${gas.toString(16)}` }]);
    assert.equal((await callWith(estimate)).error, undefined, 'succeeds with the estimate');
    const short = await callWith(estimate - 1n);
    assert.ok(short.error, 'fails with one gas less');
    const hash = await wallet.sendTransaction({ to: forwarder, data, gas: estimate, account, chain });
    assert.equal((await pub.getTransactionReceipt({ hash })).status, 'success');
    const plain = await pub.estimateGas({ account, to: ADDRS[1], value: 1n });
    assert.equal(plain, 21000n);
  });

  test('eth_feeHistory with reward percentiles, gas price floor and blob base fee', async () => {
    const h = await pub.getFeeHistory({ blockCount: 4, rewardPercentiles: [25, 75] });
    assert.equal(h.baseFeePerGas.length, h.gasUsedRatio.length + 1);
    assert.equal(h.reward!.length, h.gasUsedRatio.length);
    assert.ok(h.reward!.every((r) => r.length === 2 && r[0] <= r[1]));
    assert.ok((await pub.getGasPrice()) >= 7_000_000_000n);
    assert.equal(await pub.estimateMaxPriorityFeePerGas(), 1_000_000_000n);
    assert.ok((await pub.getBlobBaseFee()) >= 1n);
    const bad = await n.raw('eth_feeHistory', ['0x2', 'latest', [50, 10]]);
    assert.equal(bad.error!.code, -32602);
  });

  test('EIP-7702: an account delegates to a contract and runs its code', async () => {
    const delegate = await deploy('Delegation');
    const abi = artifact('Delegation').abi;
    const eoa = privateKeyToAccount(KEYS[2]);
    const eoaWallet = createWalletClient({ chain, transport: http(n.url), account: eoa });
    const authorization = await eoaWallet.signAuthorization({ account: eoa, contractAddress: delegate, executor: 'self' });
    const hash = await eoaWallet.writeContract({ address: eoa.address, abi, functionName: 'ping', authorizationList: [authorization], account: eoa, chain });
    const receipt = await pub.getTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.equal(receipt.type, 'eip7702');
    const code = await pub.getCode({ address: eoa.address });
    assert.equal(code, ('0xef0100' + delegate.slice(2).toLowerCase()) as Hex);
    assert.equal(await pub.readContract({ address: eoa.address, abi, functionName: 'counter' }), 1n);
    const tx = await pub.getTransaction({ hash });
    assert.equal(tx.authorizationList?.length, 1);
  });

  test('EIP-7702 at the default fork (BPO2): a sponsor sends the delegation of a fresh account, anyone then calls through it', async () => {
    assert.equal((await n.rpc('anvil_nodeInfo')).hardFork, 'Bpo2');
    const delegate = await deploy('Delegation');
    const abi = artifact('Delegation').abi;
    const fresh = privateKeyToAccount('0x' + 'ab'.repeat(32) as Hex);
    const freshWallet = createWalletClient({ chain, transport: http(n.url), account: fresh });
    // Signed by the account (nonce read from the node), sent and paid for by the sponsor.
    const authorization = await freshWallet.signAuthorization({ account: fresh, contractAddress: delegate });
    const hash = await wallet.writeContract({ address: fresh.address, abi, functionName: 'ping', authorizationList: [authorization], account, chain });
    const receipt = await pub.getTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.equal(receipt.type, 'eip7702');
    const [pinged] = receipt.logs.map((l) => decodeEventLog({ abi, ...l }) as { args: { self: Address; sender: Address } });
    assert.equal(pinged.args.self, fresh.address);
    assert.equal(pinged.args.sender, account.address);
    assert.equal(await pub.getTransactionCount({ address: fresh.address }), 1, 'the authorization bumped its nonce');
    // A plain call through the delegated account from a third account.
    const other = createWalletClient({ chain, transport: http(n.url), account: privateKeyToAccount(KEYS[1]) });
    const again = await other.writeContract({ address: fresh.address, abi, functionName: 'ping', account: privateKeyToAccount(KEYS[1]), chain });
    assert.equal((await pub.getTransactionReceipt({ hash: again })).status, 'success');
    assert.equal(await pub.readContract({ address: fresh.address, abi, functionName: 'counter' }), 2n);
  });
});
