/** A long loop (~6,300 steps) traces completely; its timing is measured by `npm run bench`, not here. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createContractAddress, hexToBytes } from '@ethereumjs/util';
import { SENDER, TestChain, json } from './helpers.js';

test('struct logger records every step of a ~6,300-step loop, with and without memory', async () => {
  const chain = await TestChain.create();
  // Loop of 900 iterations (7 steps each): PUSH2 900 JUMPDEST PUSH1 1 SWAP1 SUB DUP1 PUSH1 3 JUMPI STOP
  const runtime = '6103845b600190038060035700';
  await chain.send({ data: hexToBytes(`0x600d600c600039600d6000f3${runtime}`) });
  const tx = chain.tx({ to: createContractAddress(SENDER, 0n) });
  for (const config of [{}, { enableMemory: true }]) {
    await chain.vm.evm.journal.checkpoint();
    const logs = json(await chain.traceOnly(tx, config)).structLogs;
    await chain.vm.evm.journal.revert();
    assert.equal(logs.length, 2 + 900 * 7);
    assert.equal(logs[0].op, 'PUSH2');
    assert.equal(logs.at(-1).op, 'STOP');
    assert.ok(logs.every((l: { depth: number }) => l.depth === 1));
  }
});
