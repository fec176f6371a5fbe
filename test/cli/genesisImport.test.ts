/**
 * `--init <genesis.json>` (geth's genesis format) and `--import <chain.rlp>` through the command:
 * the genesis block's hash is the one ethereumjs's own blockchain computes for the file (its
 * genesis state and header code, not the node's), the file's accounts, chain id and gas limit
 * are served, and a chain exported block by block (debug_getRawBlock) imports on a fresh node
 * with the same blocks, receipts and state, which then builds on it. A block whose header does
 * not match its execution stops the start with one line naming the block and the field.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createBlockchain } from '@ethereumjs/blockchain';
import { createCommonFromGethGenesis, parseGethGenesisState } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, concatBytes, hexToBytes } from '@ethereumjs/util';
import { Wallet } from 'ethers';
import { startCli, type CliNode } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const SENDER = new Wallet(KEY).address;
const CHAIN_ID = 424242;
/** Stores 42 in slot 0 when called, logs its caller: `CALLER PUSH1 0 LOG1` then `PUSH1 42 PUSH1 0 SSTORE STOP`. */
const RUNTIME = '0x3360006000a1602a60005500';
const PREDEPLOY = '0x00000000000000000000000000000000000c0de1';

function genesis(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    config: {
      chainId: CHAIN_ID,
      homesteadBlock: 0, eip150Block: 0, eip155Block: 0, eip158Block: 0, byzantiumBlock: 0, constantinopleBlock: 0,
      petersburgBlock: 0, istanbulBlock: 0, berlinBlock: 0, londonBlock: 0, mergeNetsplitBlock: 0,
      terminalTotalDifficulty: 0, shanghaiTime: 0, cancunTime: 0, pragueTime: 0,
      blobSchedule: { cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 }, prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 } },
    },
    nonce: '0x42',
    timestamp: '0x6553f100',
    extraData: '0x6e6f64652d727063',
    gasLimit: '0x2faf080',
    difficulty: '0x0',
    mixHash: '0x' + '11'.repeat(32),
    coinbase: '0x000000000000000000000000000000000000c0ff',
    baseFeePerGas: '0x7',
    alloc: {
      [SENDER.slice(2)]: { balance: '1000000000000000000000' },
      [PREDEPLOY]: { balance: '0x1', nonce: '0x3', code: RUNTIME, storage: { '0x01': '0x2a', '0x0000000000000000000000000000000000000000000000000000000000000002': '0x0' } },
    },
    ...extra,
  };
}

/** The same file as geth writes it out: storage keys and values in full, zero values left out (the node reads the short forms as geth does). */
function canonical(json: Record<string, unknown>): Record<string, unknown> {
  const word = (n: number) => '0x' + n.toString(16).padStart(64, '0');
  const alloc = { ...(json.alloc as Record<string, Record<string, unknown>>) };
  alloc[PREDEPLOY] = { ...alloc[PREDEPLOY], storage: { [word(1)]: word(42) } };
  return { ...json, alloc };
}

/** The genesis hash ethereumjs's blockchain gives the file (its own genesis state and header code). */
async function referenceHash(json: Record<string, unknown>): Promise<string> {
  const common = createCommonFromGethGenesis(json as never, { chain: 'test' });
  const chain = await createBlockchain({ common, genesisState: parseGethGenesisState(json as never), validateConsensus: false });
  return bytesToHex(chain.genesisBlock.hash());
}

describe('--init: a geth genesis file', () => {
  const dir = tempDir('node-rpc-genesis-');
  const file = join(dir, 'genesis.json');
  let node: CliNode;
  before(async () => {
    writeFileSync(file, JSON.stringify(genesis()));
    node = await startCli(['--init', file]);
  });
  after(() => node?.stop());

  test('block 0 has the hash ethereumjs computes for the file, and its header fields', async () => {
    const b = await node.rpc('eth_getBlockByNumber', ['0x0', false]);
    assert.equal(b.hash, await referenceHash(canonical(genesis())));
    assert.equal(b.extraData, '0x6e6f64652d727063');
    assert.equal(b.gasLimit, '0x2faf080');
    assert.equal(b.timestamp, '0x6553f100');
    assert.equal(b.baseFeePerGas, '0x7');
    assert.equal(b.miner, '0x000000000000000000000000000000000000c0ff');
    assert.equal(b.mixHash, '0x' + '11'.repeat(32));
  });

  test("the file's chain id and accounts are served; the dev accounts hold nothing", async () => {
    assert.equal(await node.rpc('eth_chainId'), `0x${CHAIN_ID.toString(16)}`);
    assert.equal(await node.rpc('eth_getBalance', [SENDER, 'latest']), '0x3635c9adc5dea00000');
    assert.equal(await node.rpc('eth_getCode', [PREDEPLOY, 'latest']), RUNTIME);
    assert.equal(await node.rpc('eth_getTransactionCount', [PREDEPLOY, 'latest']), '0x3');
    assert.equal(await node.rpc('eth_getStorageAt', [PREDEPLOY, '0x1', 'latest']), '0x' + '2a'.padStart(64, '0'));
    const [dev] = await node.rpc('eth_accounts');
    assert.equal(await node.rpc('eth_getBalance', [dev, 'latest']), '0x0');
  });

  test('--hardfork replaces the schedule: block 0 carries that fork\'s header fields', async () => {
    const other = await startCli(['--init', file, '--hardfork', 'shanghai']);
    try {
      const b = await other.rpc('eth_getBlockByNumber', ['0x0', false]);
      assert.equal(b.withdrawalsRoot, '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421');
      assert.equal(b.blobGasUsed, undefined);
      assert.equal(b.requestsHash, undefined);
      assert.equal(b.stateRoot, (await node.rpc('eth_getBlockByNumber', ['0x0', false])).stateRoot, 'the same accounts');
    } finally {
      await other.stop();
    }
  });

  test('--chain-id overrides the file (the genesis hash stays the same)', async () => {
    const other = await startCli(['--init', file, '--chain-id', '77']);
    try {
      assert.equal(await other.rpc('eth_chainId'), '0x4d');
      assert.equal((await other.rpc('eth_getBlockByNumber', ['0x0', false])).hash, await referenceHash(canonical(genesis())));
    } finally {
      await other.stop();
    }
  });

  test('a bad file stops the start with one line naming the field', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify(genesis({ alloc: { '0x1234': { balance: '0x1' } } })));
    await assert.rejects(startCli(['--init', bad]), /--init .*bad\.json: alloc\.0x1234: not an address/);
  });
});

/** The same file with prague 1,000 s after genesis: block 0 runs cancun, the blocks mined now run prague. */
function transition(): Record<string, unknown> {
  const json = genesis();
  return { ...json, config: { ...(json.config as object), pragueTime: 0x6553f100 + 1000 } };
}

describe('--import: RLP blocks executed, checked and served', () => {
  const dir = tempDir('node-rpc-import-');
  const file = join(dir, 'genesis.json');
  const chain = join(dir, 'chain.rlp');
  let source: CliNode;
  let blocks: string[] = [];
  before(async () => {
    writeFileSync(file, JSON.stringify(transition()));
    source = await startCli(['--init', file]);
    const wallet = new Wallet(KEY);
    const chainId = BigInt(CHAIN_ID);
    const signed = [
      await wallet.signTransaction({ type: 0, chainId, nonce: 0, gasPrice: 10n ** 9n, gasLimit: 21000n, to: PREDEPLOY, value: 5n }),
      await wallet.signTransaction({ type: 2, chainId, nonce: 1, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, gasLimit: 100000n, to: PREDEPLOY }),
      await wallet.signTransaction({ type: 1, chainId, nonce: 2, gasPrice: 10n ** 9n, gasLimit: 100000n, data: '0x600c600c600039600c6000f3' + RUNTIME.slice(2), accessList: [] }),
    ];
    for (const raw of signed) await source.rpc('eth_sendRawTransaction', [raw]);
    await source.rpc('evm_mine');
    const head = Number(await source.rpc('eth_blockNumber'));
    blocks = [];
    for (let n = 1; n <= head; n++) blocks.push(await source.rpc('debug_getRawBlock', [`0x${n.toString(16)}`]));
    writeFileSync(chain, concatBytes(...blocks.map((b) => hexToBytes(b as `0x${string}`))));
  });
  after(() => source?.stop());

  test('the imported chain answers as the one exported, then builds on it', async () => {
    const copy = await startCli(['--init', file, '--import', chain, '--no-mining']);
    try {
      const genesisBlock = await copy.rpc('eth_getBlockByNumber', ['0x0', false]);
      assert.equal(genesisBlock.hash, await referenceHash(canonical(transition())), 'a cancun genesis');
      assert.equal(genesisBlock.requestsHash, undefined);
      assert.ok((await copy.rpc('eth_getBlockByNumber', ['0x1', false])).requestsHash, 'block 1 runs prague');
      const capabilities = await copy.rpc('eth_capabilities');
      assert.deepEqual(capabilities.head, { number: await source.rpc('eth_blockNumber'), hash: (await source.rpc('eth_getBlockByNumber', ['latest', false])).hash });
      assert.equal(capabilities.state.oldestBlock, '0x0');
      const head = await source.rpc('eth_blockNumber');
      assert.equal(await copy.rpc('eth_blockNumber'), head);
      for (let n = 0; n <= Number(head); n++) {
        const tag = `0x${n.toString(16)}`;
        assert.deepEqual(await copy.rpc('eth_getBlockByNumber', [tag, true]), await source.rpc('eth_getBlockByNumber', [tag, true]));
        assert.deepEqual(await copy.rpc('eth_getBlockReceipts', [tag]), await source.rpc('eth_getBlockReceipts', [tag]));
      }
      assert.equal(await copy.rpc('eth_getStorageAt', [PREDEPLOY, '0x0', 'latest']), '0x' + '2a'.padStart(64, '0'));
      assert.equal(await copy.rpc('eth_getBalance', [SENDER, 'latest']), await source.rpc('eth_getBalance', [SENDER, 'latest']));
      const raw = await new Wallet(KEY).signTransaction({ type: 2, chainId: BigInt(CHAIN_ID), nonce: 3, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, gasLimit: 100000n, to: PREDEPLOY, value: 1n });
      const hash = await copy.rpc('eth_sendRawTransaction', [raw]);
      const baseFee = await copy.rpc('eth_baseFee');
      await copy.rpc('evm_mine');
      const receipt = await copy.rpc('eth_getTransactionReceipt', [hash]);
      assert.equal((await copy.rpc('eth_getBlockByNumber', [receipt.blockNumber, false])).baseFeePerGas, baseFee, "eth_baseFee is the next block's");
      assert.equal(receipt.status, '0x1');
      assert.equal(receipt.blockNumber, `0x${(Number(head) + 1).toString(16)}`);
      const block = await copy.rpc('eth_getBlockByNumber', [receipt.blockNumber, false]);
      assert.equal(block.parentHash, (await copy.rpc('eth_getBlockByNumber', [head, false])).hash);
    } finally {
      await copy.stop();
    }
  });

  test('a block whose state root differs from its execution stops the start, naming the block and the field', async () => {
    const last = RLP.decode(hexToBytes(blocks[blocks.length - 1] as `0x${string}`)) as unknown as Uint8Array[][];
    const header = [...last[0]];
    header[3] = new Uint8Array(32).fill(7);
    const bad = join(dir, 'bad.rlp');
    const rest = blocks.slice(0, -1).map((b) => hexToBytes(b as `0x${string}`));
    writeFileSync(bad, concatBytes(...rest, RLP.encode([header, ...last.slice(1)] as never)));
    const number = blocks.length;
    await assert.rejects(
      startCli(['--init', file, '--import', bad]),
      (err: Error) => {
        // The output after startCli's prefix: one line.
        const output = err.message.replace(/^node-rpc exited early \(1\): /, '');
        assert.match(output, new RegExp(`^error: cannot start: block ${number} \\(0x[0-9a-f]{64}\\): stateRoot 0x(07){32} in its header, 0x[0-9a-f]{64} when executed\n$`));
        return true;
      },
    );
  });

  test('a gzipped file imports too; --import with --load-state is refused', async () => {
    const gz = join(dir, 'chain.rlp.gz');
    writeFileSync(gz, gzipSync(readFileSync(chain)));
    const copy = await startCli(['--init', file, '--import', gz, '--no-mining']);
    try {
      assert.equal(await copy.rpc('eth_blockNumber'), await source.rpc('eth_blockNumber'));
    } finally {
      await copy.stop();
    }
    const state = join(dir, 'state.json');
    writeFileSync(state, '{}');
    await assert.rejects(startCli(['--init', file, '--import', chain, '--load-state', state]), /error: cannot start: --import and --load-state/);
  });

  test('a block that does not follow the head is refused', async () => {
    const bad = join(dir, 'gap.rlp');
    writeFileSync(bad, hexToBytes(blocks[blocks.length - 1] as `0x${string}`));
    await assert.rejects(startCli(['--init', file, '--import', bad]), /error: cannot start: block \d+ \(0x[0-9a-f]{64}\): does not follow the head, block 0/);
  });
});
