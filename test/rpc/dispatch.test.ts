import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChainError, RevertError } from '../../src/chain/core/errors.js';
import { quantity } from '../../src/rpc/codecs.js';
import { listParts } from '../../src/format/stream.js';
import { Dispatcher } from '../../src/rpc/dispatch.js';
import { method, MethodTable } from '../../src/rpc/registry.js';

const table = new MethodTable([
  method('t_boom', [], () => {
    throw new TypeError('unexpected');
  }),
  method('t_chain', [], () => {
    throw new ChainError('nonce too low');
  }),
  method('t_revert', [], () => {
    throw new RevertError('execution reverted', new Uint8Array([1, 2]));
  }),
  method('t_double', [quantity], (n) => `0x${(n * 2n).toString(16)}`, { aliases: ['t_twice'] }),
  method('t_many', [quantity], (n) => listParts('[', Array.from({ length: Number(n) }, (_, i) => i), (i) => String(i), ']')),
]);
const seen: Array<[string, number | undefined]> = [];
const d = new Dispatcher(table, (m, e) => seen.push([m, e?.code]));
const ctx = { transport: 'http' as const };
const text = (b: string | Iterable<string> | undefined) => (typeof b === 'string' || b === undefined ? b : [...b].join(''));
const call = async (method: string, params: unknown[] = []) => JSON.parse(text(await d.handle(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), ctx))!);

test('unexpected exceptions become -32603, chain errors -32000 with data', async () => {
  assert.equal((await call('t_boom')).error.code, -32603);
  assert.match((await call('t_boom')).error.message, /unexpected/);
  assert.deepEqual((await call('t_chain')).error, { code: -32000, message: 'nonce too low' });
  assert.deepEqual((await call('t_revert')).error, { code: -32000, message: 'execution reverted', data: '0x0102' });
});

test('aliases resolve to the same declaration; the observer sees every call', async () => {
  assert.equal((await call('t_twice', ['0x2'])).result, '0x4');
  assert.equal((await call('t_double', ['0x3'])).result, '0x6');
  assert.ok(seen.some(([m, c]) => m === 't_boom' && c === -32603));
  assert.deepEqual(table.modules(), { t: '1.0' });
  assert.throws(() => new MethodTable([method('a_b', [], () => 1), method('a_c', [], () => 1, { aliases: ['a_b'] })]), /declared twice/);
});

test('a streamed result comes back as pieces that join into the response, alone and in a batch', async () => {
  const one = await d.handle(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 't_many', params: ['0x5'] }), ctx);
  assert.notEqual(typeof one, 'string');
  assert.deepEqual(JSON.parse(text(one)!), { jsonrpc: '2.0', id: 7, result: [0, 1, 2, 3, 4] });
  const batch = await d.handle(
    JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 't_double', params: ['0x2'] },
      { jsonrpc: '2.0', id: 2, method: 't_many', params: ['0x3'] },
      { jsonrpc: '2.0', method: 't_many', params: ['0x3'] },
      { jsonrpc: '2.0', id: 3, method: 't_many', params: ['0x0'] },
    ]),
    ctx,
  );
  assert.deepEqual(JSON.parse(text(batch)!), [
    { jsonrpc: '2.0', id: 1, result: '0x4' },
    { jsonrpc: '2.0', id: 2, result: [0, 1, 2] },
    { jsonrpc: '2.0', id: 3, result: [] },
  ]);
});
