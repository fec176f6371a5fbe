/**
 * Serving the explorer: `GET /` from a browser (Accept: text/html) gets the page, `/explorer/app.js`
 * its script and `/explorer/artifacts.json` the contracts found by `--artifacts` (or auto-detection).
 * Other GETs keep the JSON health answer. The page and script are built into dist/explorer by
 * `npm run build` and read once, at the first request.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Artifacts } from '../artifacts/artifacts.js';
import type { Page } from '../server/server.js';

/** dist/explorer, seen from the bundle (dist/node.cjs) or from the compiled module (dist/src/explorer). */
function assetDir(): string | undefined {
  for (const rel of ['./explorer/', '../../explorer/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(dir + 'index.html')) return dir;
  }
  return undefined;
}

export function explorerPages(artifacts: Artifacts | undefined): (path: string, accept: string | undefined) => Page | undefined {
  let pages: Map<string, Page> | undefined;
  const load = (): Map<string, Page> => {
    if (pages) return pages;
    pages = new Map();
    const dir = assetDir();
    if (dir !== undefined) {
      pages.set('/', { type: 'text/html; charset=utf-8', body: readFileSync(dir + 'index.html') });
      pages.set('/explorer/app.js', { type: 'text/javascript; charset=utf-8', body: readFileSync(dir + 'app.js') });
    }
    pages.set('/explorer/artifacts.json', { type: 'application/json', body: Buffer.from(JSON.stringify(artifacts?.contracts ?? [])) });
    return pages;
  };
  return (path, accept) => {
    if (path === '/' || path === '/index.html') return accept?.includes('text/html') ? load().get('/') : undefined;
    return path.startsWith('/explorer/') ? load().get(path) : undefined;
  };
}
