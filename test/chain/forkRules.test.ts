/**
 * Each selectable fork's rules as the engine holds them: eth_config's blob schedule is the one
 * ethereumjs computes blob fees with, and the Osaka rules are on from osaka and off before.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HARDFORKS, isAtLeast, parseHardfork } from '../../src/chain/core/config.js';
import { makeCommon, txGasCap } from '../../src/chain/engine/common.js';
import { forkConfig } from '../../src/chain/forkConfig.js';

test('eth_config\'s blob schedule is the engine\'s, fork by fork', () => {
  for (const hardfork of HARDFORKS) {
    const common = makeCommon(984n, hardfork);
    const { blobSchedule } = forkConfig(common, hardfork, { activationTime: 0n, forkId: new Uint8Array(4) });
    if (!isAtLeast(hardfork, 'cancun')) {
      assert.deepEqual(blobSchedule, { baseFeeUpdateFraction: 0, max: 0, target: 0 });
      continue;
    }
    const s = common.getBlobGasSchedule();
    const perBlob = common.param('blobGasPerBlob');
    assert.deepEqual(
      blobSchedule,
      { baseFeeUpdateFraction: Number(s.blobGasPriceUpdateFraction), max: Number(s.maxBlobGasPerBlock / perBlob), target: Number(s.targetBlobGasPerBlock / perBlob) },
      hardfork,
    );
  }
});

test('the Osaka rules (CLZ, P256VERIFY, the MODEXP changes, the gas cap, the block size limit, the blob fee bound) are on from osaka, off before', () => {
  for (const hardfork of HARDFORKS) {
    const common = makeCommon(984n, hardfork);
    const on = isAtLeast(hardfork, 'osaka');
    for (const eip of [7823, 7825, 7883, 7918, 7934, 7939, 7951]) assert.equal(common.isActivatedEIP(eip), on, `${hardfork} EIP-${eip}`);
    assert.equal(txGasCap(common), on ? 1n << 24n : undefined, hardfork);
    if (on) assert.equal(common.param('maxRlpBlockSize'), 8n * 1024n * 1024n);
  }
});

test('fork names as anvil and Hardhat spell them', () => {
  assert.equal(parseHardfork('Prague'), 'prague');
  assert.equal(parseHardfork('OSAKA'), 'osaka');
  assert.equal(parseHardfork('Bpo1'), 'bpo1');
  assert.equal(parseHardfork('latest'), 'bpo2');
  assert.equal(parseHardfork('london'), 'london');
  assert.equal(parseHardfork('Frontier'), 'chainstart');
  assert.equal(parseHardfork('merge'), 'paris');
  assert.equal(parseHardfork('Tangerine'), 'tangerineWhistle');
  assert.equal(parseHardfork('spurious_dragon'), 'spuriousDragon');
  assert.equal(parseHardfork('MuirGlacier'), 'muirGlacier');
  assert.equal(parseHardfork('dao'), undefined);
  assert.equal(parseHardfork('bpo3'), undefined);
});
