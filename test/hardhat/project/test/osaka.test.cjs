// A contract compiled for Osaka (evmVersion 'osaka'): CLZ and P256VERIFY on node-rpc's default fork.
const { expect } = require('chai');
const { ethers } = require('hardhat');
const { createHash, generateKeyPairSync, sign } = require('node:crypto');

function p256Signature() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const message = Buffer.from('hardhat on osaka');
  const sig = sign('sha256', message, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  const jwk = publicKey.export({ format: 'jwk' });
  const hex = (b) => '0x' + Buffer.from(b).toString('hex');
  return [hex(createHash('sha256').update(message).digest()), hex(sig.subarray(0, 32)), hex(sig.subarray(32)), hex(Buffer.from(jwk.x, 'base64url')), hex(Buffer.from(jwk.y, 'base64url'))];
}

describe('Osaka features on node-rpc', function () {
  it('CLZ counts leading zeros', async function () {
    const c = await ethers.deployContract('OsakaFeatures');
    expect(await c.leadingZeros(0n)).to.equal(256n);
    expect(await c.leadingZeros(1n)).to.equal(255n);
    expect(await c.leadingZeros(1n << 255n)).to.equal(0n);
  });

  it('P256VERIFY accepts a valid secp256r1 signature and rejects a changed one', async function () {
    const c = await ethers.deployContract('OsakaFeatures');
    const args = p256Signature();
    expect(await c.verifyP256(...args)).to.equal(true);
    args[0] = ethers.zeroPadValue('0x01', 32);
    expect(await c.verifyP256(...args)).to.equal(false);
  });
});
