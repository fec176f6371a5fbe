/**
 * eth_estimateGas answers the smallest gas limit with which the request succeeds — anvil's answer,
 * compared on the same contracts and calls — including where an inner call's failure is ignored
 * (with less gas the inner call fails and the outer one still succeeds). A transaction sent with
 * the estimate succeeds and one gas less does not. The number of executions an estimate takes is
 * counted on the engine: one where the code can take no other path with less gas (EIP-2200's
 * SSTORE stipend included), three where the code calls out.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Interface } from 'ethers';
import type { Anvil } from '../support/anvil.js';
import { closeBeside, startBeside } from '../support/beside.js';
import { ADDRS, RpcCallError, artifact, startTestNode, waitForReceipt, type TestNode } from '../support/node.js';

type Rpc = Pick<TestNode, 'rpc'>;
/** PUSH1 1 PUSH1 0 SSTORE PUSH1 2 PUSH1 0 SSTORE STOP */
const REWRITE_RUNTIME = '6001600055600260005500';
const iface = (name: string) => new Interface(artifact(name).abi);
const hex = (n: bigint) => `0x${n.toString(16)}`;

async function deploy(n: Rpc, name: string, args: unknown[] = []): Promise<string> {
  const data = artifact(name).bytecode + iface(name).encodeDeploy(args).slice(2);
  const hash = await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], data }]);
  return (await waitForReceipt(n, hash)).contractAddress;
}

/** The same contracts on a node, and the requests the tests estimate. */
async function requests(n: Rpc): Promise<Record<string, Record<string, string>>> {
  const token = await deploy(n, 'Token', ['T', 'T', 10n ** 24n]);
  const costly = await deploy(n, 'Costly');
  const ignores = await deploy(n, 'IgnoresFailure');
  const callee = await deploy(n, 'Callee');
  const caller = await deploy(n, 'Caller');
  const reverter = await deploy(n, 'Reverter');
  const forwarder = await deploy(n, 'GasForwarder');
  // Runtime code: SSTORE(0, 1); SSTORE(0, 2); STOP. The second write, to a slot already written,
  // costs 100 gas: with just the gas the run consumes it would see less than EIP-2200's 2,300 left.
  const rewrite = (await waitForReceipt(n, await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], data: `0x600b600c600039600b6000f3${REWRITE_RUNTIME}` }]))).contractAddress;
  const from = ADDRS[0];
  return {
    'ERC20 transfer': { from, to: token, data: iface('Token').encodeFunctionData('transfer', [ADDRS[1], 5n]) },
    'ERC20 transfer, priced': { from, to: token, data: iface('Token').encodeFunctionData('transfer', [ADDRS[2], 5n]), maxFeePerGas: hex(10n ** 10n) },
    'inner failure ignored': { from, to: ignores, data: iface('IgnoresFailure').encodeFunctionData('poke', [costly]) },
    'fresh storage write': { from, to: costly, data: iface('Costly').encodeFunctionData('work') },
    'inner revert caught': { from, to: caller, data: iface('Caller').encodeFunctionData('tryFail', [callee]) },
    'inner call out of its gas': { from, to: caller, data: iface('Caller').encodeFunctionData('tryBurn', [callee]) },
    'gasleft() check behind the 63/64 rule': { from, to: forwarder, data: iface('GasForwarder').encodeFunctionData('forward', [reverter, 100_000n]) },
    'ether transfer': { from, to: ADDRS[1], value: '0x1' },
    'a slot written twice, the cheap write last': { from, to: rewrite },
    'ether to a contract': { from, to: caller, value: '0x1' },
    'contract creation': { from, data: artifact('Costly').bytecode },
  };
}

describe('eth_estimateGas against anvil', () => {
  let ours: TestNode;
  let anvil: Anvil;
  before(async () => ({ ours, anvil } = await startBeside()));
  after(() => closeBeside(ours, anvil));

  test('the same contracts and calls get the same estimates, the cheaper path of an ignored inner failure included', async () => {
    const answers: Record<string, string>[] = [];
    for (const node of [ours, anvil] as Rpc[]) {
      const out: Record<string, string> = {};
      for (const [name, req] of Object.entries(await requests(node))) out[name] = BigInt(await node.rpc('eth_estimateGas', [req])).toString();
      answers.push(out);
    }
    assert.deepEqual(answers[0], answers[1]);
    // The ignored failure: far below what the call uses when its inner call succeeds.
    assert.ok(Number(answers[0]!['inner failure ignored']) < Number(answers[0]!['fresh storage write']));
  });
});

describe('eth_estimateGas is the smallest gas that succeeds', () => {
  let n: TestNode;
  let reqs: Record<string, Record<string, string>>;
  let runs = 0;

  before(async () => {
    n = await startTestNode();
    reqs = await requests(n);
    // Count the top-level executions the engine makes (inner calls come with a message).
    const evm = n.node.vm.evm;
    const runCall = evm.runCall.bind(evm);
    evm.runCall = (opts) => {
      if (opts.message === undefined) runs++;
      return runCall(opts);
    };
  });
  after(() => n.close());

  async function sendWith(req: Record<string, string>, gas: bigint): Promise<string> {
    const hash = await n.rpc('eth_sendTransaction', [{ ...req, gas: hex(gas) }]);
    return (await waitForReceipt(n, hash)).status;
  }

  for (const name of ['ERC20 transfer', 'ERC20 transfer, priced', 'fresh storage write', 'a slot written twice, the cheap write last', 'inner failure ignored', 'inner revert caught', 'gasleft() check behind the 63/64 rule', 'inner call out of its gas', 'ether to a contract', 'contract creation']) {
    test(`${name}: sent with the estimate it succeeds, with one gas less it fails`, async () => {
      const req = reqs[name]!;
      const snapshot = await n.rpc('evm_snapshot');
      const gas = BigInt(await n.rpc('eth_estimateGas', [req]));
      assert.equal(await sendWith(req, gas - 1n), '0x0');
      await n.rpc('evm_revert', [snapshot]);
      const again = await n.rpc('evm_snapshot');
      assert.equal(await sendWith(req, gas), '0x1');
      await n.rpc('evm_revert', [again]);
    });
  }

  test('where an ignored inner failure is cheaper, the transaction sent with the estimate takes that path', async () => {
    const req = reqs['inner failure ignored']!;
    const costly = iface('IgnoresFailure').decodeFunctionData('poke', req.data!)[0] as string;
    const writes = { to: costly, data: iface('Costly').encodeFunctionData('writes') };
    const snapshot = await n.rpc('evm_snapshot');
    assert.equal(await sendWith(req, BigInt(await n.rpc('eth_estimateGas', [req]))), '0x1');
    assert.equal(BigInt(await n.rpc('eth_call', [writes])), 0n, 'the inner call ran out of gas');
    // With the gas the call uses when its inner call succeeds, it does succeed.
    const full = BigInt(await n.rpc('eth_estimateGas', [reqs['fresh storage write']]));
    assert.equal(await sendWith(req, full + 10_000n), '0x1');
    assert.equal(BigInt(await n.rpc('eth_call', [writes])), 1n);
    await n.rpc('evm_revert', [snapshot]);
  });

  test('executions per estimate: one where the code can take no other path with less gas, three where the code calls out', async () => {
    runs = 0;
    await n.rpc('eth_estimateGas', [reqs['ERC20 transfer']]);
    assert.equal(runs, 1, 'an ERC20 transfer: the run at the cap proves the answer');
    runs = 0;
    await n.rpc('eth_estimateGas', [reqs['inner revert caught']]);
    assert.equal(runs, 3, 'a CALL in the code: one gas less is run to prove that no cheaper path exists');
    runs = 0;
    assert.equal(await n.rpc('eth_estimateGas', [reqs['ether transfer']]), '0x5208');
    assert.equal(runs, 1);
    runs = 0;
    // 21,000 + 22,212 consumed; the last SSTORE needs 2,301 left where 100 would do.
    assert.equal(BigInt(await n.rpc('eth_estimateGas', [reqs['a slot written twice, the cheap write last']])), 21_000n + 22_212n - 100n + 2_301n);
    assert.equal(runs, 1);
  });

  test('failures are as before: revert data at the cap, and the allowance named when gas never suffices', async () => {
    const reverter = iface('Reverter');
    const to = (reqs['gasleft() check behind the 63/64 rule']!.data && iface('GasForwarder').decodeFunctionData('forward', reqs['gasleft() check behind the 63/64 rule']!.data!)[0]) as string;
    await assert.rejects(n.rpc('eth_estimateGas', [{ from: ADDRS[0], to, data: reverter.encodeFunctionData('revertCustom') }]), (err: RpcCallError) => {
      assert.equal(err.code, -32000);
      assert.equal(err.message, 'execution reverted');
      assert.equal((err.data as string).slice(0, 10), reverter.getError('Unauthorized')!.selector);
      return true;
    });
    await assert.rejects(n.rpc('eth_estimateGas', [{ ...reqs['ERC20 transfer'], gas: '0x5300' }]), /gas required exceeds allowance \(21248\)/);
    await assert.rejects(n.rpc('eth_estimateGas', [{ from: ADDRS[0], to, data: reverter.encodeFunctionData('needsGas', [10n ** 9n]) }]), /execution reverted: not enough gas/);
  });
});

test('fixedPath: GAS, calls and creates make a path gas-dependent; PUSH data and Solidity metadata are not opcodes; a delegation is never fixed', async () => {
  const { fixedPath } = await import('../../src/chain/exec/estimate.js');
  const bytes = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));
  assert.equal(fixedPath(bytes('')), true, 'no code');
  assert.equal(fixedPath(bytes('6001600055')), true, 'PUSH1 1 PUSH1 0 SSTORE');
  assert.equal(fixedPath(bytes('5a600055')), false, 'GAS');
  for (const op of ['f0', 'f1', 'f2', 'f4', 'f5', 'fa']) assert.equal(fixedPath(bytes(`6000${op}00`)), false, `opcode 0x${op}`);
  assert.equal(fixedPath(bytes('605a61f1f100')), true, 'PUSH1 0x5a and PUSH2 0xf1f1 are data');
  // Code, then metadata: a CBOR map (0xa2 …) holding an 0xf1 byte, then its length (5).
  assert.equal(fixedPath(bytes('6001600055' + 'a2f15af1f4' + '0005')), true, 'the metadata is not read');
  assert.equal(fixedPath(bytes('5a' + 'a2f15af1f4' + '0005')), false, 'the code before it is');
  assert.equal(fixedPath(bytes('ef0100' + '11'.repeat(20))), false, 'an EIP-7702 delegation');
});
