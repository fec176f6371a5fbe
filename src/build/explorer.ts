/**
 * Build step: bundle the explorer's page app (src/explorer/app) into dist/explorer/app.js beside
 * its index.html. Everything it needs is in those two files: no CDN, works offline.
 */
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const out = join(root, 'dist', 'explorer');
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(root, 'src', 'explorer', 'app', 'main.ts')],
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  outfile: join(out, 'app.js'),
  logLevel: 'warning',
});
copyFileSync(join(root, 'src', 'explorer', 'index.html'), join(out, 'index.html'));
