/**
 * Build step: bundle the node (the command line and createNode, src/cli/entry.ts) into
 * dist/node.cjs, its loader (src/launch/load.ts, which compiles the bundle from a V8 code cache)
 * into dist/load.cjs, the package's ES module entry into dist/index.js (a few lines over the
 * loader) with its declarations, and the call worker into dist/worker.js. A start reads a few
 * files instead of resolving hundreds of modules; the command and the package share one bundle,
 * so they share one code cache.
 *
 * The bundles drop whitespace and fold syntax, but keep every name, so stack traces still name
 * the functions: reading and compiling 1.4 MB instead of 2 MB is about 5 ms of each start.
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
const RUNTIME = ['secp256k1', 'tiny-secp256k1', '@crate-crypto/node-eth-kzg'];
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
  entryPoints: [join(root, 'src', 'cli', 'entry.ts')],
  format: 'cjs',
  outfile: join(root, 'dist', 'node.cjs'),
  // Native, WebAssembly or data packages resolved at run time; bufferutil/utf-8-validate are ws's optional natives.
  external: ['bufferutil', 'utf-8-validate', ...RUNTIME],
  define: { 'import.meta.url': '__import_meta_url' },
  banner: { js: "const __import_meta_url=require('node:url').pathToFileURL(__filename).href;" },
});

await build({
  ...common,
  entryPoints: [join(root, 'src', 'launch', 'load.ts')],
  format: 'cjs',
  outfile: join(root, 'dist', 'load.cjs'),
});

// The package's entry: ES module syntax for `import { createNode } from 'node-rpc'`, the bundle
// itself compiled by the loader (an ES module gets no code cache in Node 20).
writeFileSync(
  join(root, 'dist', 'index.js'),
  [
    '// node-rpc as a library: createNode from the bundle (dist/node.cjs), compiled by dist/load.cjs from its code cache.',
    "import { createRequire } from 'node:module';",
    "import { fileURLToPath } from 'node:url';",
    "export const { createNode } = createRequire(import.meta.url)('./load.cjs').loadBundle(fileURLToPath(new URL('./node.cjs', import.meta.url)));",
    '',
  ].join('\n'),
);
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
