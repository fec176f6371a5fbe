/**
 * A `solc` executable for forge, made of the solc-js package: forge cannot download a native
 * solc here, and `solcjs` (solc-js's own CLI) takes other arguments. forge asks a compiler
 * given by `--use <path>` two things: `--version` (the version line it parses), and a
 * standard-JSON compilation (`--standard-json` plus path flags, the input on stdin with every
 * source's content inlined). solc-js's `compile()` is that same standard-JSON interface over the
 * same compiler built to WebAssembly, so its answer is passed through as is.
 *
 * Run through a shell script that `exec`s node on this file (see `solcForForge`).
 */
import { readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface SolcJs {
  version(): string;
  compile(input: string): string;
}

/** Write an executable `solc` into `dir` that runs this shim; returns its path. */
export function solcForForge(dir: string): string {
  const path = join(dir, 'solc');
  writeFileSync(path, `#!/bin/sh\nexec '${process.execPath}' '${fileURLToPath(import.meta.url)}' "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

/** The version solc-js was built from, as a native solc prints it. */
export function solcVersion(): string {
  const solc = createRequire(import.meta.url)('solc') as SolcJs;
  return solc.version().replace(/\.Emscripten\.clang$/, '');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args.includes('--version')) {
    process.stdout.write(`solc, the solidity compiler commandline interface\nVersion: ${solcVersion()}.Linux.g++\n`);
  } else if (args.includes('--standard-json')) {
    const solc = createRequire(import.meta.url)('solc') as SolcJs;
    process.stdout.write(solc.compile(readFileSync(0, 'utf8')));
  } else {
    process.stderr.write(`this solc takes only --version and --standard-json (got: ${args.join(' ')})\n`);
    process.exit(2);
  }
}
