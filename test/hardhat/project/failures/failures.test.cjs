// Transactions sent with an explicit gas limit (no estimate to fail first) that fail when mined:
// hardhat's chai matchers read the revert from eth_sendTransaction's error, as the hardhat node
// answers it. Run by test/hardhat/hardhat.test.ts against `node-rpc dev --throw-on-transaction-failures`.
const { expect } = require('chai');
const { ethers } = require('hardhat');

describe('failed transactions sent with a gas limit', function () {
  let token, owner, alice;
  before(async function () {
    [owner, alice] = await ethers.getSigners();
    token = await ethers.deployContract('Token', ['Token', 'TKN', 1000n]);
    await token.waitForDeployment();
  });

  it('revertedWithCustomError, with its arguments', async function () {
    await expect(token.connect(alice).transfer(owner.address, 5n, { gasLimit: 100_000 }))
      .to.be.revertedWithCustomError(token, 'InsufficientBalance')
      .withArgs(alice.address, 0n, 5n);
  });

  it('revertedWithoutReason when it runs out of gas', async function () {
    await expect(token.transfer(alice.address, 5n, { gasLimit: 30_000 })).to.be.revertedWithoutReason();
  });

  it('the failed transaction is mined, and the sender nonce moves on', async function () {
    const nonce = await ethers.provider.getTransactionCount(alice.address);
    const head = await ethers.provider.getBlockNumber();
    await expect(token.connect(alice).transfer(owner.address, 1n, { gasLimit: 100_000 })).to.be.reverted;
    expect(await ethers.provider.getTransactionCount(alice.address)).to.equal(nonce + 1);
    const block = await ethers.provider.getBlock(head + 1);
    const receipt = await ethers.provider.getTransactionReceipt(block.transactions[0]);
    expect(receipt.status).to.equal(0);
  });
});
