import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  Contract,
  ContractFactory,
  JsonRpcProvider,
  Signature,
  Transaction,
  TypedDataEncoder,
  Wallet,
  hashMessage,
  parseEther,
  recoverAddress,
  verifyMessage,
  verifyTypedData,
  type TransactionReceipt,
} from 'ethers';
import { ADDRS, KEYS, artifact, startTestNode, type TestNode } from '../support/node.js';

describe('ethers 6 against a live node', () => {
  let n: TestNode;
  let provider: JsonRpcProvider;
  let wallet: Wallet;
  let token: Contract;

  before(async () => {
    n = await startTestNode();
    provider = new JsonRpcProvider(n.url, 984, { staticNetwork: true, cacheTimeout: -1 });
    wallet = new Wallet(KEYS[0], provider);
    const t = artifact('Token');
    const factory = new ContractFactory(t.abi, t.bytecode, wallet);
    token = (await (await factory.deploy('Test', 'TST', parseEther('1000'))).waitForDeployment()) as Contract;
  });
  after(async () => {
    provider.destroy();
    await n.close();
  });

  test('deploys an ERC20 and reads it back', async () => {
    assert.equal(await token.name(), 'Test');
    assert.equal(await token.balanceOf(ADDRS[0]), parseEther('1000'));
    const code = await provider.getCode(await token.getAddress());
    assert.equal(code, artifact('Token').deployedBytecode);
  });

  test('a transfer is mined at once with its Transfer event in the receipt', async () => {
    const before = await provider.getBlockNumber();
    const tx = await token.transfer(ADDRS[1], 1234n);
    const receipt = (await tx.wait()) as TransactionReceipt;
    assert.equal(receipt.status, 1);
    assert.equal(receipt.blockNumber, before + 1);
    assert.equal(receipt.logs.length, 1);
    const parsed = token.interface.parseLog(receipt.logs[0])!;
    assert.equal(parsed.name, 'Transfer');
    assert.deepEqual([...parsed.args], [ADDRS[0], ADDRS[1], 1234n]);
    assert.equal(receipt.logs[0].index, 0);
    assert.equal(await token.balanceOf(ADDRS[1]), 1234n);
    const block = await provider.getBlock(receipt.blockNumber);
    assert.deepEqual(block!.transactions, [receipt.hash]);
  });

  test('revert reasons, custom errors and panics decode', async () => {
    const r = artifact('Reverter');
    const reverter = (await (await new ContractFactory(r.abi, r.bytecode, wallet).deploy()).waitForDeployment()) as Contract;
    await assert.rejects(reverter.revertWithReason.staticCall(), (e: any) => e.reason === 'nope: reason' && e.code === 'CALL_EXCEPTION');
    await assert.rejects(reverter.revertCustom.staticCall(), (e: any) => e.revert?.name === 'Unauthorized' && e.revert.args[0] === ADDRS[0]);
    await assert.rejects(reverter.panicDivide.staticCall(0), (e: any) => e.revert?.name === 'Panic' && BigInt(e.revert.args[0]) === 0x12n);
    await assert.rejects(token.transfer.staticCall(ADDRS[1], parseEther('1000000')), (e: any) => e.revert?.name === 'InsufficientBalance');
    // Sending runs eth_estimateGas first; its error carries the same raw revert data.
    await assert.rejects(token.transfer(ADDRS[1], parseEther('1000000')), (e: any) => token.interface.parseError(e.data)?.name === 'InsufficientBalance');
  });

  test('legacy (EIP-155), access-list and 1559 transactions are accepted', async () => {
    const w = new Wallet(KEYS[1], provider);
    const legacy = await w.sendTransaction({ to: ADDRS[2], value: 1n, type: 0, gasPrice: 10n ** 10n });
    const legacyReceipt = await legacy.wait();
    assert.equal(legacyReceipt!.type, 0);
    const fetched = await provider.getTransaction(legacy.hash);
    assert.equal(fetched!.chainId, 984n);
    const al = await w.sendTransaction({ to: ADDRS[2], value: 1n, type: 1, gasPrice: 10n ** 10n, accessList: [{ address: ADDRS[2], storageKeys: [] }] });
    assert.equal((await al.wait())!.type, 1);
    const eip1559 = await w.sendTransaction({ to: ADDRS[2], value: 1n, type: 2 });
    const r = await eip1559.wait();
    assert.equal(r!.type, 2);
    assert.ok(r!.gasPrice >= (await provider.getBlock(r!.blockNumber))!.baseFeePerGas!);
  });

  test('a transaction signed for another chain id is rejected', async () => {
    const w = new Wallet(KEYS[2]);
    const signed = await w.signTransaction({ to: ADDRS[1], value: 1n, gasLimit: 21000n, gasPrice: 10n ** 10n, nonce: 0, chainId: 1n, type: 0 });
    const r = await n.raw('eth_sendRawTransaction', [signed]);
    assert.equal(r.error!.code, -32000);
    assert.match(r.error!.message, /invalid chain id/);
    const typed = await w.signTransaction({ to: ADDRS[1], value: 1n, gasLimit: 21000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, nonce: 0, chainId: 5n, type: 2 });
    const r2 = await n.raw('eth_sendRawTransaction', [typed]);
    assert.match(r2.error!.message, /invalid chain id/);
  });

  test('eth_sign / personal_sign / eth_signTypedData_v4 recover to the dev account', async () => {
    const msg = '0x68656c6c6f20776f726c64';
    const s1 = await n.rpc<string>('eth_sign', [ADDRS[0], msg]);
    assert.equal(verifyMessage(new Uint8Array(Buffer.from('hello world')), s1), ADDRS[0]);
    const s2 = await n.rpc<string>('personal_sign', [msg, ADDRS[1]]);
    assert.equal(recoverAddress(hashMessage(new Uint8Array(Buffer.from('hello world'))), Signature.from(s2)), ADDRS[1]);
    const domain = { name: 'Mail', version: '1', chainId: 984, verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC' };
    const types = {
      Person: [
        { name: 'name', type: 'string' },
        { name: 'wallet', type: 'address' },
      ],
      Mail: [
        { name: 'from', type: 'Person' },
        { name: 'to', type: 'Person[]' },
        { name: 'contents', type: 'string' },
        { name: 'amount', type: 'uint256' },
        { name: 'tag', type: 'bytes32' },
      ],
    };
    const message = {
      from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
      to: [{ name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' }],
      contents: 'Hello, Bob!',
      amount: 42,
      tag: '0x' + '01'.repeat(32),
    };
    const payload = TypedDataEncoder.getPayload(domain, types, message);
    const s3 = await n.rpc<string>('eth_signTypedData_v4', [ADDRS[0], JSON.stringify(payload)]);
    assert.equal(verifyTypedData(domain, types, message, s3), ADDRS[0]);
    const unknown = await n.raw('eth_sign', ['0x000000000000000000000000000000000000dEaD', msg]);
    assert.match(unknown.error!.message, /unknown account/);
  });

  test('eth_sendTransaction from a dev account fills nonce, gas and fees', async () => {
    const signer = await provider.getSigner(ADDRS[2]);
    const tx = await signer.sendTransaction({ to: ADDRS[1], value: parseEther('1') });
    const r = await tx.wait();
    assert.equal(r!.status, 1);
    assert.equal(r!.gasUsed, 21000n);
    const raw = await n.rpc<string>('eth_signTransaction', [{ from: ADDRS[2], to: ADDRS[1], value: '0x1' }]);
    const parsed = Transaction.from(raw);
    assert.equal(parsed.from, ADDRS[2]);
    assert.equal(parsed.chainId, 984n);
    assert.equal(parsed.nonce, await provider.getTransactionCount(ADDRS[2]));
  });
});
