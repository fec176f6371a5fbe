/** The terminal log's lines (src/lib/lines.ts): one write per turn of the event loop, in order, none lost at exit. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { batchedLines } from '../../src/lib/lines.js';

const turn = () => new Promise((r) => setImmediate(r));

test('lines made in one turn go out together at its end, in order; the next turn makes its own write', async () => {
  const writes: string[] = [];
  const lines = batchedLines((text) => writes.push(text));
  lines.line('a');
  lines.line('b');
  assert.deepEqual(writes, [], 'nothing is written inside the turn');
  await turn();
  assert.deepEqual(writes, ['a\nb\n']);
  lines.line('c');
  await turn();
  assert.deepEqual(writes, ['a\nb\n', 'c\n']);
  await turn();
  assert.equal(writes.length, 2, 'no empty writes');
});

test('flush writes what waits at once', () => {
  const writes: string[] = [];
  const lines = batchedLines((text) => writes.push(text));
  lines.line('x');
  lines.flush();
  assert.deepEqual(writes, ['x\n']);
  lines.flush();
  assert.deepEqual(writes, ['x\n']);
});

test('lines still waiting when the process exits are written', () => {
  const module = fileURLToPath(new URL('../../src/lib/lines.js', import.meta.url));
  const script = `import { batchedLines } from ${JSON.stringify(module)};
const lines = batchedLines((text) => process.stdout.write(text));
lines.line('first');
lines.line('last');
process.exit(0);`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(out, 'first\nlast\n');
});
