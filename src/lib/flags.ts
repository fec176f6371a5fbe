/** Flag value parsers: each names the problem so commander can name the flag. */
import { InvalidArgumentError } from 'commander';
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { DEFAULT_MNEMONIC, HARDFORKS, parseHardfork, type SupportedHardfork } from '../chain/core/config.js';
import type { BlockOrder } from '../chain/pool/txpool.js';
import { parseEther } from './units.js';

const fail = (msg: string): never => {
  throw new InvalidArgumentError(msg);
};

export function intIn(min: number, max: number, what: string) {
  return (text: string): number => {
    if (!/^\d+$/.test(text)) fail(`${what} must be a whole number`);
    const n = Number(text);
    if (n < min || n > max) fail(`${what} must be between ${min} and ${max}`);
    return n;
  };
}

/** A non-negative integer amount (wei, gas) of any size; decimal or 0x-hex. */
export function bigUint(what: string, min = 0n) {
  return (text: string): bigint => {
    if (!/^(\d+|0x[0-9a-fA-F]+)$/.test(text)) fail(`${what} must be a non-negative whole number`);
    const n = BigInt(text);
    if (n < min) fail(`${what} must be at least ${min}`);
    return n;
  };
}

export function ether(text: string): bigint {
  const wei = parseEther(text);
  return wei ?? fail('balance must be a non-negative number of ether, e.g. 10000 or 0.5');
}

/** The forks as the flag's help and errors list them: ethereumjs's names, with frontier and merge beside theirs. */
export const HARDFORK_NAMES = HARDFORKS.map((h) => (h === 'chainstart' ? 'chainstart (frontier)' : h === 'paris' ? 'paris (merge)' : h)).join(', ');

export function hardfork(text: string): SupportedHardfork {
  return parseHardfork(text) ?? fail(`unknown hardfork '${text}': known are ${HARDFORK_NAMES} and latest (= the default)`);
}

export function mnemonic(text: string): string {
  const m = text.trim().split(/\s+/).join(' ');
  // The default is known valid (test/chain/wallet.test.ts checks it): its check would normalize it (loading ICU's
  // data, ~5 MB of RSS) and hash it, at every start.
  return m === DEFAULT_MNEMONIC || validateMnemonic(m, wordlist) ? m : fail('not a valid BIP-39 English mnemonic');
}

/** `--fork-url`: an http(s) URL. */
export function forkUrl(text: string): string {
  let u: URL | undefined;
  try {
    u = new URL(text);
  } catch {
    u = undefined;
  }
  return u && (u.protocol === 'http:' || u.protocol === 'https:') ? text : fail('fork URL must be an http:// or https:// URL');
}

/** `--fork-header "Name: value"` (repeatable): collected into one header map. */
export function forkHeader(text: string, previous: Record<string, string> = {}): Record<string, string> {
  const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*:\s*(.*)$/.exec(text);
  if (!m) fail('fork header must look like "Name: value"');
  return { ...previous, [m![1]]: m![2].trim() };
}

export function derivationPath(text: string): string {
  return /^m(\/\d+'?)*\/?$/.test(text) ? text : fail("derivation path must look like m/44'/60'/0'/0/");
}

/** Seconds, fractions allowed (--block-time 0.5, --state-interval). */
export function seconds(text: string): number {
  const n = Number(text);
  return /^\d+(\.\d+)?$/.test(text) && n > 0 ? n : fail('must be a positive number of seconds, e.g. 2 or 0.5');
}

/** `--client-version`: the whole web3_clientVersion answer. */
export function clientVersion(text: string): string {
  return text.trim() === '' || text.length > 256 || /[\x00-\x1f\x7f]/.test(text) ? fail('must be 1 to 256 printable characters') : text;
}

/** `--order`: how a block orders its transactions. */
export function blockOrder(text: string): BlockOrder {
  return text === 'fees' || text === 'fifo' ? text : fail('must be fees or fifo');
}
