/**
 * Failed calls and gas estimates name their place in the Solidity source: the JSON-RPC error's
 * message carries the stack, innermost frame first, for every build layout of the fixtures
 * (Hardhat build info and Foundry out/, optimizer on and off); `error.data` stays exactly the
 * revert bytes, so ethers and viem decode as before. Code without an artifact keeps today's text.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Contract, JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import { createPublicClient, http, ContractFunctionRevertedError, BaseError } from 'viem';
import { loadArtifacts } from '../../src/artifacts/load.js';
import { ADDRS, KEYS, startTestNode, type TestNode } from '../support/node.js';
import { deployFixtures, LAYOUTS, lineOf, type Deployed } from '../support/sourcemaps.js';

const FROM = ADDRS[0];
const DEAD = '0x000000000000000000000000000000000000dEaD';

/** `name file:line:` of the fixture line holding `text`. */
const at = (name: string, text: string) => `${name} src/Thrower.sol:${lineOf(text)}:\\d+`;
const REQUIRE = at('Thrower.requireString', 'require(x > 10');

/** Cases: [contract, function, args, expected message as a regex source]. */
function cases(d: Deployed): Array<[string, { to?: string; data: string }, string]> {
  const t = (fn: string, args: unknown[] = []) => ({ to: d.thrower, data: d.iface.thrower.encodeFunctionData(fn, args) });
  const c = (fn: string, args: unknown[] = []) => ({ to: d.caller, data: d.iface.caller.encodeFunctionData(fn, args) });
  return [
    ['two frames deep', c('callRequire', [5]), `execution reverted: x must be greater than 10 \\(at ${REQUIRE}, ${at('Caller.callRequire', 'thrower.requireString(x);')}\\)`],
    ['custom error', t('custom', [101]), `execution reverted: Bad\\(${FROM}, 101\\) \\(at ${at('Thrower.custom', 'revert Bad')}\\)`],
    ['custom error, two frames', c('callCustom', [101]), `execution reverted: Bad\\(${d.caller}, 101\\) \\(at ${at('Thrower.custom', 'revert Bad')}, ${at('Caller.callCustom', 'thrower.custom(amount)')}\\)`],
    ['overflow panic', t('overflow', [2]), `execution reverted: panic: arithmetic underflow or overflow \\(0x11\\) \\(at ${at('Thrower.overflow', 'a + type')}\\)`],
    ['division panic', t('divide', [2, 0]), `execution reverted: panic: division or modulo by zero \\(0x12\\) \\(at ${at('Thrower.divide', 'a / b')}\\)`],
    ['array panic', t('index', [3]), `execution reverted: panic: out-of-bounds access of an array or bytesN \\(0x32\\) \\(at ${at('Thrower.index', 'items[i]')}\\)`],
    ['assert panic', t('assertion', [3]), `execution reverted: panic: assert\\(false\\) \\(0x01\\) \\(at ${at('Thrower.assertion', 'assert(x == 0)')}\\)`],
    ['library', t('checked', [1]), `execution reverted: TooSmall\\(1, 5\\) \\(at ${at('Checks.atLeast', 'revert TooSmall')}, ${at('Thrower.checked', 'Checks.atLeast(x, 5)')}\\)`],
    ['invalid opcode', t('invalid'), `invalid opcode \\(at ${at('Thrower.invalid', '            invalid()')}\\)`],
    ['out of gas in a frame', c('callBurn'), `execution reverted: out of gas \\(at ${at('Thrower.burn', 'while (true)')}, ${at('Caller.callBurn', 'thrower.burn{gas')}\\)`],
    ['call to a non-contract', c('callNonContract', [DEAD]), `execution reverted: call to non-contract account ${DEAD.toLowerCase()} \\(at ${at('Caller.callNonContract', 'Thrower(target)')}\\)`],
    ['constructor', { data: d.failing(0n) }, `execution reverted: constructor needs a non-zero x \\(at ${at('Failing.constructor', 'require(x != 0')}\\)`],
  ];
}

describe('Solidity stacks with call workers', () => {
  it('a call that failed on a worker is explained on the main thread', async () => {
    const node = await startTestNode({ callWorkers: 1, artifacts: loadArtifacts([LAYOUTS['hardhat-noopt']!], () => undefined) });
    try {
      const d = await deployFixtures('hardhat-noopt', new NonceManager(new Wallet(KEYS[0], new JsonRpcProvider(node.url, undefined, { staticNetwork: true }))));
      const r = await node.raw('eth_call', [{ to: d.caller, data: d.iface.caller.encodeFunctionData('callRequire', [5]) }, 'latest']);
      assert.match(r.error!.message, new RegExp(`^execution reverted: x must be greater than 10 \\(at ${REQUIRE}, `));
    } finally {
      await node.close();
    }
  });
});

describe('Solidity stacks in JSON-RPC errors', () => {
  let plain: TestNode;
  let plainFixtures: Deployed;
  before(async () => {
    plain = await startTestNode();
    plainFixtures = await deployFixtures('foundry-opt', new NonceManager(new Wallet(KEYS[0], new JsonRpcProvider(plain.url, undefined, { staticNetwork: true }))));
  });
  after(async () => plain?.close());

  for (const layout of Object.keys(LAYOUTS)) {
    describe(layout, () => {
      let node: TestNode;
      let d: Deployed;
      let provider: JsonRpcProvider;
      before(async () => {
        const warnings: string[] = [];
        node = await startTestNode({ artifacts: loadArtifacts([LAYOUTS[layout]!], (w) => warnings.push(w)) });
        assert.deepEqual(warnings, []);
        provider = new JsonRpcProvider(node.url, undefined, { staticNetwork: true });
        d = await deployFixtures(layout, new NonceManager(new Wallet(KEYS[0], provider)));
      });
      after(async () => node?.close());

      it('eth_call and eth_estimateGas name every frame; error.data is the revert data, as without artifacts', async () => {
        const expected = cases(d);
        const without = cases(plainFixtures);
        for (const [i, [what, req, message]] of expected.entries()) {
          for (const method of ['eth_call', 'eth_estimateGas']) {
            const params = method === 'eth_call' ? [{ from: FROM, ...req }, 'latest'] : [{ from: FROM, ...req }];
            const r = await node.raw(method, params);
            assert.ok(r.error, `${what}: ${method} fails`);
            assert.match(r.error.message, new RegExp(`^${message}$`), `${what} (${method})`);
            const p = await plain.raw(method, method === 'eth_call' ? [{ from: FROM, ...without[i]![1] }, 'latest'] : [{ from: FROM, ...without[i]![1] }]);
            // A revert explained with a stack has geth's code 3 (viem then decodes error.data whatever the message).
            assert.equal(r.error.code, p.error?.code === -32000 && r.error.data !== undefined ? 3 : p.error?.code, what);
            assert.equal(typeof r.error.data === 'string' ? r.error.data.replaceAll(d.caller.slice(2).toLowerCase(), '') : r.error.data,
              typeof p.error?.data === 'string' ? p.error.data.replaceAll(plainFixtures.caller.slice(2).toLowerCase(), '') : p.error?.data, `${what}: same data`);
            assert.doesNotMatch(p.error!.message, /\(at /, 'no artifacts: no stack');
          }
        }
      });

      it('code no artifact matches keeps today’s message (the other optimizer setting’s build)', async () => {
        const other = layout.endsWith('noopt') ? layout.replace('noopt', 'opt') : layout.replace('opt', 'noopt');
        const o = await deployFixtures(other, new NonceManager(new Wallet(KEYS[1], provider)));
        const r = await node.raw('eth_call', [{ from: FROM, to: o.caller, data: o.iface.caller.encodeFunctionData('callRequire', [5]) }, 'latest']);
        assert.equal(r.error?.message, 'execution reverted: x must be greater than 10');
        assert.equal(r.error?.code, -32000);
        const c = await node.raw('eth_estimateGas', [{ from: FROM, to: o.thrower, data: o.iface.thrower.encodeFunctionData('custom', [101]) }]);
        assert.equal(c.error?.message, 'execution reverted');
      });

      it('ethers and viem decode the errors as before', async () => {
        const caller = new Contract(d.caller, d.iface.caller, provider);
        await assert.rejects(caller.getFunction('callRequire').staticCall(5), (e: any) => e.code === 'CALL_EXCEPTION' && e.reason === 'x must be greater than 10');
        const thrower = new Contract(d.thrower, d.iface.thrower, provider);
        await assert.rejects(thrower.getFunction('custom').staticCall(101), (e: any) => e.revert?.name === 'Bad' && e.revert.args[1] === 101n);
        await assert.rejects(thrower.getFunction('divide').staticCall(1, 0), (e: any) => e.revert?.name === 'Panic' && BigInt(e.revert.args[0]) === 0x12n);
        const client = createPublicClient({ transport: http(node.url) });
        const abi = d.iface.thrower.formatJson();
        const viemError = async (functionName: string, args: bigint[]) => {
          try {
            await client.readContract({ address: d.thrower as `0x${string}`, abi: JSON.parse(abi), functionName, args, account: FROM });
          } catch (e) {
            const inner = e instanceof BaseError ? e.walk((x) => x instanceof ContractFunctionRevertedError) : undefined;
            assert.ok(inner instanceof ContractFunctionRevertedError, String(e));
            return inner;
          }
          assert.fail(`${functionName} succeeded`);
        };
        assert.equal((await viemError('custom', [101n])).data?.errorName, 'Bad');
        assert.equal((await viemError('divide', [1n, 0n])).data?.errorName, 'Panic');
        assert.equal((await viemError('requireString', [1n])).reason, 'x must be greater than 10');
      });
    });
  }
});
