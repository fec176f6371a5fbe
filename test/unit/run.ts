/**
 * The fast tier in one process: every `*.test.js` under this folder, imported in name order, so the
 * library is loaded once rather than once per file (`npm run test:unit` runs this file; `npm test`
 * runs each test file on its own as usual).
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';

const here = fileURLToPath(new URL('.', import.meta.url));
const files = (readdirSync(here, { recursive: true }) as string[]).filter((f) => f.endsWith('.test.js')).sort();
if (files.length === 0) throw new Error(`no test files under ${here}`);
for (const f of files) await import(pathToFileURL(join(here, f)).href);
