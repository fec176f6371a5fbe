/**
 * Signers recovered once per signed transaction: a suite that reverts to its fixture sends the same
 * signed bytes again, and the node takes the signer it recovered the first time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { privateKeyToAccount } from 'viem/accounts';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { makeCommon } from '../../src/chain/engine/common.js';
import { decodeRawTx, RecentSenders } from '../../src/chain/pool/admission.js';
import { ADDRS, GWEI, KEYS, chain, type Chain } from './support.js';

const TO = '0x00000000000000000000000000000000000000b0';

async function signed(key: string, nonce: number, value = 1n): Promise<`0x${string}`> {
  return privateKeyToAccount(key as `0x${string}`).signTransaction({
    type: 'eip1559',
    chainId: 984,
    nonce,
    to: TO,
    value,
    gas: 21_000n,
    maxFeePerGas: 100n * GWEI,
    maxPriorityFeePerGas: GWEI,
  });
}

describe('signers recovered once', () => {
  let c: Chain;
  before(async () => {
    c = await chain();
  });
  after(() => c.close());

  test('the same signed bytes sent again after a revert are mined from the same sender', async () => {
    const raw = await signed(KEYS[2]!, 0);
    let snap = await c.rpc<string>('evm_snapshot');
    for (let round = 0; round < 3; round++) {
      const hash = await c.rpc<string>('eth_sendRawTransaction', raw);
      const receipt = await c.rpc<{ from: string; status: string }>('eth_getTransactionReceipt', hash);
      assert.equal(receipt.from, ADDRS[2]!.toLowerCase());
      assert.equal(receipt.status, '0x1');
      assert.equal(await c.rpc('evm_revert', snap), true);
      snap = await c.rpc<string>('evm_snapshot');
    }
  });

  test('a second decoding of known bytes takes the recovered key; other bytes are recovered anew', async () => {
    const common = makeCommon(984n, 'osaka');
    const senders = new RecentSenders(2);
    const raws = [await signed(KEYS[1]!, 0), await signed(KEYS[0]!, 0), await signed(KEYS[1]!, 1)];
    const decode = (raw: string) => {
      const tx = decodeRawTx(hexToBytes(raw as `0x${string}`), common);
      return { tx, hashHex: bytesToHex(tx.hash()) };
    };
    const first = decode(raws[0]!);
    assert.equal(senders.recover(first.tx, first.hashHex).toString(), ADDRS[1]!.toLowerCase());
    const again = decode(raws[0]!);
    assert.equal(senders.recover(again.tx, again.hashHex).toString(), ADDRS[1]!.toLowerCase());
    // The very key the first decoding recovered: no signature was checked again.
    assert.equal(again.tx.getSenderPublicKey(), first.tx.getSenderPublicKey());
    // Two more transactions push the first out of a memo of two: it is recovered anew.
    for (const raw of raws.slice(1)) {
      const d = decode(raw);
      senders.recover(d.tx, d.hashHex);
    }
    const later = decode(raws[0]!);
    assert.equal(senders.recover(later.tx, later.hashHex).toString(), ADDRS[1]!.toLowerCase());
    assert.notEqual(later.tx.getSenderPublicKey(), first.tx.getSenderPublicKey());
    assert.deepEqual(later.tx.getSenderPublicKey(), first.tx.getSenderPublicKey());
  });
});
