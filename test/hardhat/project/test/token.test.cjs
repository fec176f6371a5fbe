// Hardhat's own tooling against node-rpc: network helpers and chai matchers, right after cheats.
const { expect } = require('chai');
const { ethers } = require('hardhat');
const helpers = require('@nomicfoundation/hardhat-network-helpers');

const E = 10n ** 18n;

async function deployToken() {
  const [owner, alice, bob] = await ethers.getSigners();
  const token = await ethers.deployContract('Token', ['Token', 'TKN', 1_000_000n * E]);
  await token.waitForDeployment();
  return { token, owner, alice, bob };
}

describe('Hardhat project on node-rpc', function () {
  it('loadFixture deploys once and reverts to it for every test', async function () {
    const { token, owner, alice } = await helpers.loadFixture(deployToken);
    await token.transfer(alice.address, 5n * E);
    expect(await token.balanceOf(alice.address)).to.equal(5n * E);
    const again = await helpers.loadFixture(deployToken);
    expect(await again.token.getAddress()).to.equal(await token.getAddress());
    expect(await again.token.balanceOf(alice.address)).to.equal(0n);
    expect(await again.token.balanceOf(owner.address)).to.equal(1_000_000n * E);
  });

  it('time.latest, time.increase and time.increaseTo move the chain clock', async function () {
    const start = await helpers.time.latest();
    await helpers.time.increase(3600);
    expect(await helpers.time.latest()).to.be.gte(start + 3600);
    const target = (await helpers.time.latest()) + 86_400;
    await helpers.time.increaseTo(target);
    expect(await helpers.time.latest()).to.equal(target);
    const block = await helpers.time.latestBlock();
    expect(block).to.equal(await ethers.provider.getBlockNumber());
  });

  it('mine adds blocks, with an interval between them', async function () {
    const before = await ethers.provider.getBlockNumber();
    const t0 = await helpers.time.latest();
    await helpers.mine(10, { interval: 15 });
    expect(await ethers.provider.getBlockNumber()).to.equal(before + 10);
    expect(await helpers.time.latest()).to.be.gte(t0 + 9 * 15);
  });

  it('setBalance, then changeEtherBalances of a transfer', async function () {
    const [, alice, bob] = await ethers.getSigners();
    await helpers.setBalance(alice.address, 100n * E);
    expect(await ethers.provider.getBalance(alice.address)).to.equal(100n * E);
    await expect(alice.sendTransaction({ to: bob.address, value: 3n * E })).to.changeEtherBalances([alice, bob], [-3n * E, 3n * E]);
    await helpers.setBalance(bob.address, 7n * E);
    await expect(bob.sendTransaction({ to: alice.address, value: E })).to.changeEtherBalance(alice, E);
  });

  it('impersonateAccount sends from an address without a key', async function () {
    const { token } = await helpers.loadFixture(deployToken);
    const whale = '0x00000000000000000000000000000000000000aa';
    await helpers.setBalance(whale, 10n * E);
    await helpers.impersonateAccount(whale);
    const signer = await ethers.getSigner(whale);
    await expect(signer.sendTransaction({ to: await token.getAddress(), value: 0n, data: token.interface.encodeFunctionData('approve', [whale, 1n]) })).to.emit(token, 'Approval');
    await helpers.stopImpersonatingAccount(whale);
  });

  it('setStorageAt edits a token balance, then changeTokenBalances of a transfer', async function () {
    const { token, alice, bob } = await helpers.loadFixture(deployToken);
    // Token's storage: name (0), symbol (1), totalSupply (2), balanceOf (3).
    const slot = ethers.solidityPackedKeccak256(['uint256', 'uint256'], [alice.address, 3]);
    await helpers.setStorageAt(await token.getAddress(), slot, 50n * E);
    expect(await token.balanceOf(alice.address)).to.equal(50n * E);
    expect(BigInt(await helpers.getStorageAt(await token.getAddress(), slot))).to.equal(50n * E);
    await expect(token.connect(alice).transfer(bob.address, 20n * E)).to.changeTokenBalances(token, [alice, bob], [-20n * E, 20n * E]);
    await expect(token.connect(bob).transfer(alice.address, 999n * E)).to.be.revertedWithCustomError(token, 'InsufficientBalance').withArgs(bob.address, 20n * E, 999n * E);
  });

  it('takeSnapshot and restore', async function () {
    const { token, alice } = await helpers.loadFixture(deployToken);
    const snapshot = await helpers.takeSnapshot();
    await token.transfer(alice.address, 9n * E);
    await helpers.setBalance(alice.address, 1n);
    expect(await token.balanceOf(alice.address)).to.equal(9n * E);
    await snapshot.restore();
    expect(await token.balanceOf(alice.address)).to.equal(0n);
    expect(await ethers.provider.getBalance(alice.address)).to.not.equal(1n);
  });

  it('a time-gated call sent right after time.increaseTo is estimated in the block it goes into', async function () {
    const start = (await helpers.time.latest()) + 3600;
    const vesting = await ethers.deployContract('Vesting', [start]);
    await vesting.waitForDeployment();
    await expect(vesting.release()).to.be.revertedWithCustomError(vesting, 'NotYet');
    // The chain's time is now `start`; the next block's is later, so release() succeeds there.
    await helpers.time.increaseTo(start);
    await expect(vesting.release()).to.emit(vesting, 'Released');
    await helpers.time.setNextBlockTimestamp(start + 100);
    await expect(vesting.release()).to.emit(vesting, 'Released').withArgs(start + 100, (await ethers.provider.getBlockNumber()) + 1);
    expect(await vesting.released()).to.equal(2n);
  });

  it('setNonce, setCode and mineUpTo', async function () {
    const [, , , carol] = await ethers.getSigners();
    await helpers.setNonce(carol.address, 40);
    expect(await ethers.provider.getTransactionCount(carol.address)).to.equal(40);
    await helpers.setCode('0x00000000000000000000000000000000000000bb', '0x6001600055');
    expect(await ethers.provider.getCode('0x00000000000000000000000000000000000000bb')).to.equal('0x6001600055');
    const target = (await ethers.provider.getBlockNumber()) + 5;
    await helpers.mineUpTo(target);
    expect(await ethers.provider.getBlockNumber()).to.equal(target);
  });
});
