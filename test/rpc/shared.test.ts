/**
 * A shared node (--public) locks signing with the dev accounts and the test controls unless
 * --unlock / --allow-cheats open them, and caps the block range of eth_getLogs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Wallet } from 'ethers';
import { createMethodTable } from '../../src/rpc/methods/index.js';
import { lockOf, OPEN_NAMESPACES, READ_ONLY_CONTROLS, SIGNING } from '../../src/rpc/policy.js';
import { VERSION } from '../../src/lib/version.js';
import { startCli } from '../support/cli.js';
import { ADDRS, KEYS, startTestNode, waitForReceipt, type TestNode } from '../support/node.js';

const SIGNING_CALLS: Array<[string, unknown[]]> = [
  ['eth_sendTransaction', [{ from: ADDRS[0], to: ADDRS[1], value: '0x1' }]],
  ['eth_sign', [ADDRS[0], '0x1234']],
  ['personal_sign', ['0x1234', ADDRS[0]]],
  ['eth_signTypedData_v4', [ADDRS[0], { types: { EIP712Domain: [] }, primaryType: 'EIP712Domain', domain: {}, message: {} }]],
  ['anvil_impersonateAccount', [ADDRS[2]]],
];
const CHEAT_CALLS: Array<[string, unknown[]]> = [
  ['evm_mine', []],
  ['hardhat_setBalance', [ADDRS[1], '0x1']],
  ['anvil_setCode', [ADDRS[1], '0x00']],
];

async function refused(node: TestNode, name: string, params: unknown[], flag: string): Promise<void> {
  const r = await node.raw(name, params);
  assert.equal(r.error?.code, -32000, `${name} refused`);
  assert.ok(r.error!.message.startsWith(`${name} is disabled on a shared node`), r.error!.message);
  assert.ok(r.error!.message.includes(flag), `${name} names ${flag}: ${r.error!.message}`);
}

async function sendSigned(node: TestNode, nonce: number): Promise<string> {
  const raw = await new Wallet(KEYS[0]).signTransaction({ type: 2, chainId: 984, nonce, to: ADDRS[1], value: 1n, gasLimit: 21_000, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n });
  return node.rpc('eth_sendRawTransaction', [raw]);
}

describe('shared node: the method policy', () => {
  test('every method of the table is open, signing or a cheat; every control namespace method not read-only is a cheat', async () => {
    const node = await startTestNode();
    try {
      const names = createMethodTable(node.node, VERSION).names();
      for (const name of names) {
        const lock = lockOf(name);
        if (/^(anvil|hardhat|evm)_/.test(name)) assert.ok(lock !== undefined || READ_ONLY_CONTROLS.has(name), `${name} is locked or listed read-only`);
        if (/sign|impersonat|sendTransaction|sendUnsigned/i.test(name)) assert.equal(lock, 'signing', `${name} is a signing method`);
        // Anything else is open only in a namespace known to read, and never under a name that writes.
        if (lock === undefined && !READ_ONLY_CONTROLS.has(name)) {
          assert.ok(OPEN_NAMESPACES.has(name.slice(0, name.indexOf('_'))), `${name}: a namespace the policy does not know (classify it in src/rpc/policy.ts)`);
          assert.doesNotMatch(name, /_(set|reset|mine|revert|snapshot|load|drop|increase|remove|rollback|reorg|impersonate)/i, `${name} looks like it changes the chain`);
        }
      }
      for (const name of SIGNING) assert.equal(lockOf(name), 'signing');
      for (const name of READ_ONLY_CONTROLS) assert.equal(lockOf(name), undefined);
      assert.equal(lockOf('anvil_someMethodAddedLater'), 'cheat');
      assert.equal(lockOf('eth_sendRawTransaction'), undefined);
    } finally {
      await node.close();
    }
  });
});

describe('shared node, locked', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ shared: true, host: '127.0.0.1' });
  });
  after(() => node.close());

  test('signing with dev keys and impersonation are refused naming --unlock; test controls naming --allow-cheats', async () => {
    for (const [name, params] of SIGNING_CALLS) await refused(node, name, params, '--unlock');
    for (const [name, params] of CHEAT_CALLS) await refused(node, name, params, '--allow-cheats');
    assert.deepEqual(await node.rpc('eth_accounts'), []);
    assert.equal(typeof (await node.rpc('anvil_nodeInfo')), 'object');
  });

  test('a transaction signed by the client is accepted and mined', async () => {
    const hash = await sendSigned(node, 0);
    assert.equal((await waitForReceipt(node, hash)).status, '0x1');
  });

  test('eth_getLogs over more than 10,000 blocks is refused naming the limit; a narrower range is answered', async () => {
    const r = await node.raw('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x2710' }]);
    // The chain is short: the range is checked against the head first, as geth does.
    assert.equal(r.error?.code, -32602);
    assert.deepEqual(await node.rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]), []);
  });
});

describe('shared node, opened', () => {
  test('--allow-cheats opens evm_mine but not eth_sendTransaction; --unlock opens eth_sendTransaction', async () => {
    const cheats = await startTestNode({ shared: true, host: '127.0.0.1', allowCheats: true, maxBlockRange: 3 });
    try {
      await cheats.rpc('evm_mine');
      await cheats.rpc('anvil_mine', ['0x10']);
      await refused(cheats, 'eth_sendTransaction', SIGNING_CALLS[0]![1], '--unlock');
      const wide = await cheats.raw('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x4' }]);
      assert.equal(wide.error?.code, -32005);
      assert.match(wide.error!.message, /block range too large: 4 blocks \(0x1-0x4\), the limit is 3 \(--max-block-range\)/);
      assert.deepEqual(await cheats.rpc('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x3' }]), []);
    } finally {
      await cheats.close();
    }
    const unlocked = await startTestNode({ shared: true, host: '127.0.0.1', unlock: true });
    try {
      const hash = await unlocked.rpc('eth_sendTransaction', SIGNING_CALLS[0]![1]);
      assert.equal((await waitForReceipt(unlocked, hash)).status, '0x1');
      assert.equal((await unlocked.rpc('eth_accounts')).length, 10);
      await refused(unlocked, 'evm_mine', [], '--allow-cheats');
    } finally {
      await unlocked.close();
    }
  });

  test('plain dev mode is unchanged', async () => {
    const dev = await startTestNode();
    try {
      await dev.rpc('evm_mine');
      assert.equal((await dev.rpc('eth_accounts')).length, 10);
      assert.ok(await dev.rpc('eth_sendTransaction', SIGNING_CALLS[0]![1]));
      assert.ok(Array.isArray(await dev.rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }])));
    } finally {
      await dev.close();
    }
  });
});

describe('node-rpc dev --public', () => {
  test('prints no private key, says what is locked, and refuses evm_mine', async () => {
    const cli = await startCli(['--public', '--host', '127.0.0.1']);
    try {
      const out = cli.output();
      assert.doesNotMatch(out, /Private Keys|0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80|Mnemonic:/);
      assert.match(out, /Shared node/);
      assert.match(out, /Signing:\s+locked/);
      const r = await cli.send('evm_mine');
      assert.equal(r.error?.code, -32000);
      assert.match(r.error!.message, /--allow-cheats/);
    } finally {
      await cli.stop();
    }
  });
});
