/**
 * Finds uses of ethereumjs internals in TypeScript source: ethereumjs marks its private fields
 * with a leading underscore (`_store`, `_runState`, `_caches`, `_opcodeMap`), so outside the engine
 * folder no member named `_x` may be read, written, declared (a type to cast onto: `as { _store: T }`),
 * destructured or named by a string (`x['_store']`, `Reflect.get(x, '_store')`, `'_store' in x`).
 * The hooks the dependency patches read or offer (`leanTopFrame`, `getStorageMaybe`, …) may not
 * be named at all. Comments are skipped; strings count only as a whole (a `_` inside a longer
 * message is not a member name).
 *
 * The source is tokenized (comments, strings, template literals and regular expressions told
 * apart), so a match is code, not text. Parameters and locals named `_x` (an unused argument) are
 * not members and are not flagged.
 */

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface Finding {
  line: number;
  what: string;
}

type Token =
  | { kind: 'name'; text: string; line: number }
  | { kind: 'string'; text: string; line: number }
  | { kind: 'template'; text: string; line: number }
  | { kind: 'punct'; text: string; line: number };

const PRIVATE = /^_[A-Za-z$]/;
/** A string that is exactly a `_`-named member. */
const WHOLE = /^_[A-Za-z$][A-Za-z0-9_$]*$/;
const NAME_START = /[A-Za-z_$]/;
const NAME_PART = /[A-Za-z0-9_$]/;
/** After these a `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let line = 1;
  let i = 0;
  /** Open `${` of template literals: the brace depth each one was opened at. */
  const templates: number[] = [];
  let braces = 0;
  const regexAllowed = () => {
    const last = out.at(-1);
    if (last === undefined) return true;
    if (last.kind === 'name') return BEFORE_REGEX.has(last.text);
    if (last.kind === 'punct') return ![')', ']', '}'].includes(last.text);
    return false;
  };
  /** A template literal's text from `i` (after a backtick or a closing `}`) to its end or next `${`. */
  const templatePart = (): void => {
    let text = '';
    const start = line;
    while (i < src.length) {
      const c = src[i]!;
      if (c === '\\') {
        text += src.slice(i, i + 2);
        i += 2;
        continue;
      }
      if (c === '`') {
        i++;
        break;
      }
      if (c === '$' && src[i + 1] === '{') {
        text += '${';
        i += 2;
        templates.push(braces);
        braces++;
        break;
      }
      if (c === '\n') line++;
      text += c;
      i++;
    }
    out.push({ kind: 'template', text, line: start });
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === '\n') {
      line++;
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r') i++;
    else if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      const stop = end === -1 ? src.length : end + 2;
      for (let k = i; k < stop; k++) if (src[k] === '\n') line++;
      i = stop;
    } else if (c === '"' || c === "'") {
      let text = '';
      i++;
      while (i < src.length && src[i] !== c) {
        if (src[i] === '\\') {
          text += src[i + 1];
          i += 2;
        } else text += src[i++];
      }
      i++;
      out.push({ kind: 'string', text, line });
    } else if (c === '`') {
      i++;
      templatePart();
    } else if (c === '/' && regexAllowed()) {
      // A regular expression literal: up to the closing `/` outside a class, then its flags.
      i++;
      let inClass = false;
      while (i < src.length && src[i] !== '\n') {
        const r = src[i]!;
        if (r === '\\') i += 2;
        else {
          i++;
          if (r === '[') inClass = true;
          else if (r === ']') inClass = false;
          else if (r === '/' && !inClass) break;
        }
      }
      while (i < src.length && NAME_PART.test(src[i]!)) i++;
      out.push({ kind: 'string', text: '', line });
    } else if (NAME_START.test(c)) {
      let j = i + 1;
      while (j < src.length && NAME_PART.test(src[j]!)) j++;
      out.push({ kind: 'name', text: src.slice(i, j), line });
      i = j;
    } else if (/[0-9]/.test(c)) {
      let j = i + 1;
      while (j < src.length && /[0-9A-Za-z_.]/.test(src[j]!)) j++;
      out.push({ kind: 'name', text: src.slice(i, j), line });
      i = j;
    } else if (c === '?' && src[i + 1] === '.' && !/[0-9]/.test(src[i + 2] ?? '')) {
      out.push({ kind: 'punct', text: '?.', line });
      i += 2;
    } else if (c === '{') {
      braces++;
      out.push({ kind: 'punct', text: c, line });
      i++;
    } else if (c === '}') {
      braces--;
      if (templates.length > 0 && templates.at(-1) === braces) {
        templates.pop();
        i++;
        templatePart();
      } else {
        out.push({ kind: 'punct', text: c, line });
        i++;
      }
    } else {
      out.push({ kind: 'punct', text: c, line });
      i++;
    }
  }
  return out;
}

const MODIFIERS = new Set(['readonly', 'private', 'protected', 'public', 'static', 'override', 'declare', 'get', 'set', 'async', 'abstract']);
/** JavaScript's own members (`map`, `queue` is not one, `size`, …): never ethereumjs's alone. */
const BUILT_IN = [Object.prototype, Array.prototype, Map.prototype, Set.prototype, Promise.prototype, String.prototype, Uint8Array.prototype, Function.prototype, Error.prototype];

/** Names `src` declares as members of its own objects, types and classes. */
export function declaredMembers(src: string): Set<string> {
  const tokens = tokenize(src);
  const names = new Set<string>();
  for (let k = 1; k < tokens.length; k++) {
    const t = tokens[k]!;
    const prev = tokens[k - 1]!;
    const next = tokens[k + 1];
    if (t.kind !== 'name' || next?.kind !== 'punct' || !/^[:?(<=;]$/.test(next.text)) continue;
    if ((prev.kind === 'punct' && (prev.text === '{' || prev.text === ',' || prev.text === ';')) || (prev.kind === 'name' && MODIFIERS.has(prev.text))) names.add(t.text);
  }
  return names;
}

/**
 * Members ethereumjs declares `private` or `protected` without an underscore (`runInterpreter`,
 * `performanceLogger`, …) and never declares public anywhere: read from the declarations of every
 * package under `dir` (node_modules/@ethereumjs), so a new version brings its own list. Names
 * JavaScript's own objects have, or that appear in `ours` (the members our own code declares), are
 * left out: `x.map` or our own `vm` field is not ethereumjs's.
 */
export function hiddenMembers(dir: string, ours: ReadonlySet<string> = new Set()): Set<string> {
  const hidden = new Set<string>();
  const open = new Set<string>();
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((n) => {
      const f = join(d, n);
      if (statSync(f).isDirectory()) return n === 'node_modules' || n === 'cjs' ? [] : walk(f);
      return n.endsWith('.d.ts') ? [f] : [];
    });
  for (const pkg of readdirSync(dir)) {
    for (const file of walk(join(dir, pkg))) {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        const m = /^\s+(?:(private|protected)\s+)?(?:static\s+)?(?:readonly\s+)?(?:get\s+|set\s+|async\s+)?([A-Za-z_$][\w$]*)\??[:(<;]/.exec(line);
        if (m === null) continue;
        (m[1] === undefined ? open : hidden).add(m[2]!);
      }
    }
  }
  for (const name of [...hidden]) if (open.has(name) || PRIVATE.test(name) || ours.has(name) || BUILT_IN.some((o) => name in o)) hidden.delete(name);
  return hidden;
}

/**
 * Every use of a `_`-named member, of one of `hooks`, or of a `hidden` member (read as
 * `x.name`, `x?.name` or `x['name']`) in `src`.
 */
export function privateAccesses(src: string, hooks: readonly string[] = [], hidden: ReadonlySet<string> = new Set()): Finding[] {
  const tokens = tokenize(src);
  const found: Finding[] = [];
  /** The open brackets around each token: `{` (object, type, class, block) or `(` / `[`. */
  const open: string[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    const prev = tokens[k - 1];
    const next = tokens[k + 1];
    if (t.kind === 'punct') {
      if (t.text === '{' || t.text === '(' || t.text === '[') open.push(t.text);
      else if (t.text === '}' || t.text === ')' || t.text === ']') open.pop();
      continue;
    }
    if (t.kind === 'name') {
      if (hooks.includes(t.text)) {
        found.push({ line: t.line, what: `hook ${t.text}` });
        continue;
      }
      const afterDot = prev?.kind === 'punct' && (prev.text === '.' || prev.text === '?.');
      if (afterDot && hidden.has(t.text)) {
        found.push({ line: t.line, what: `protected member ${t.text}` });
        continue;
      }
      if (!PRIVATE.test(t.text)) continue;
      if (afterDot && !(tokens[k - 2]?.kind === 'punct' && tokens[k - 2]!.text === '.')) {
        found.push({ line: t.line, what: `member ${t.text}` });
        continue;
      }
      // A key of an object, a type literal, an interface, a class or a destructuring: `{ _x: … }`,
      // `{ _x?: … }`, `{ _x(…) … }`, `{ _x, … }`, `{ _x }`. Inside `( … )` it is a parameter.
      if (open.at(-1) === '{' && prev?.kind === 'punct' && (prev.text === '{' || prev.text === ',' || prev.text === ';')) {
        const n = next?.kind === 'punct' ? next.text : '';
        if (n === ':' || n === '?' || n === '(' || n === ',' || n === '}' || n === '<') found.push({ line: t.line, what: `member ${t.text}` });
      }
      continue;
    }
    // A string naming a member as a whole, or its start: `x['_store']`, `Reflect.get(x, '_store')`,
    // `'_' + name`, `` `_${name}` `` (a template part holds `${` where an expression follows).
    const joined = next?.kind === 'punct' && next.text === '+';
    if (WHOLE.test(t.text) || (joined && /^_[A-Za-z0-9_$]*$/.test(t.text)) || (t.kind === 'template' && /^_[A-Za-z0-9_$]*\$\{$/.test(t.text))) {
      found.push({ line: t.line, what: `member '${t.text}'` });
    } else if (hooks.includes(t.text.replace(/\$\{$/, ''))) found.push({ line: t.line, what: `hook '${t.text}'` });
    else if (t.kind === 'string' && hidden.has(t.text) && prev?.kind === 'punct' && prev.text === '[') found.push({ line: t.line, what: `protected member '${t.text}'` });
  }
  return found;
}
