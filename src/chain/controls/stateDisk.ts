/**
 * State files on disk: read and checked before anything changes, written atomically (temporary
 * file, fsync, rename, folder fsync), their folder checked at start and stale temporaries removed.
 */
import { constants } from 'node:fs';
import { access, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { decodeStateBlob, parseState, StateError, type ParsedState } from './stateFile.js';
import type { StateTarget } from './stateJson.js';

/** Read and check a state file (plain or gzip-compressed JSON). */
export async function readStateFile(node: StateTarget, path: string): Promise<ParsedState> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new StateError(`state file ${path}`, e.code === 'ENOENT' ? 'no such file' : e.message);
  }
  return parseState(node, decodeStateBlob(bytes), `state file ${path}`);
}

/** Temporary files of one process get distinct names, so overlapping writers never share one. */
let tempSeq = 0;
const TEMP_RE = /\.\d+(\.\d+)?\.tmp$/;

/**
 * Write `text` (one string, or chunks written one after another) to `path` atomically: a temporary file next to it, flushed to disk, renamed over
 * the target, and the folder flushed so the rename itself survives a power cut. A crash at any
 * point leaves the previous file or the new one, never a mix.
 */
export async function writeStateFile(path: string, text: string | string[]): Promise<void> {
  const tmp = `${path}.${process.pid}.${tempSeq++}.tmp`;
  try {
    const fh = await open(tmp, 'w');
    try {
      // Chunk by chunk: a large document is never copied into one more string.
      for (const chunk of typeof text === 'string' ? [text] : text) await fh.write(chunk);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  const dir = await open(dirname(path), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/**
 * Before a node writes `path`: its folder must exist and be writable (refused at start, not
 * discovered at exit), and temporary files an earlier process left behind when killed mid-write
 * are removed.
 */
export async function prepareStatePath(path: string): Promise<void> {
  const dir = dirname(resolve(path));
  try {
    if (!(await stat(dir)).isDirectory()) throw new StateError(`state file ${path}`, `${dir} is not a folder`);
    await access(dir, constants.W_OK);
  } catch (err) {
    if (err instanceof StateError) throw err;
    const e = err as NodeJS.ErrnoException;
    throw new StateError(`state file ${path}`, e.code === 'ENOENT' ? `the folder ${dir} does not exist` : `the folder ${dir} is not writable (${e.code ?? e.message})`);
  }
  const base = basename(path);
  for (const name of await readdir(dir)) {
    if (name.startsWith(base + '.') && TEMP_RE.test(name.slice(base.length))) await rm(join(dir, name), { force: true });
  }
}
