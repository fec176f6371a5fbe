/**
 * What coverage counts in one Solidity file, read from its solc AST: the statements (each line a
 * statement starts on is a line), the functions and modifiers with a body, and the branches with
 * their two sides: `if` (true / false), a loop's condition (enters the body / leaves the loop),
 * the ternary (true / false), `&&` (right side evaluated / short circuit), `||` (short circuit /
 * right side evaluated) and `require` / `assert` (passes / fails). Every item is a byte range of
 * the file, as solc's source maps give them.
 */
import type { SourceText } from '../artifacts/sourceMap.js';

export interface Range {
  readonly start: number;
  readonly length: number;
}

export type BranchKind = 'if' | 'loop' | 'ternary' | 'and' | 'or' | 'require';

export interface Branch extends Range {
  readonly kind: BranchKind;
  /** Where each side is: instructions inside `sides[i]` (when reached from the decision) take side i. */
  readonly sides: readonly [Range | undefined, Range | undefined];
  /** The part of the source whose instructions mean side `inside` (the other side otherwise). */
  readonly probe: Range;
  readonly inside: 0 | 1;
}

export interface Fn extends Range {
  readonly name: string;
  /** The declaration (from the keyword to the body). */
  readonly decl: Range;
}

export interface FileModel {
  readonly file: SourceText;
  /** Sorted by start, outer before inner. */
  readonly statements: Range[];
  readonly functions: Fn[];
  readonly branches: Branch[];
}

const STATEMENTS = new Set([
  'ExpressionStatement',
  'VariableDeclarationStatement',
  'Return',
  'EmitStatement',
  'RevertStatement',
  'IfStatement',
  'ForStatement',
  'WhileStatement',
  'DoWhileStatement',
  'Break',
  'Continue',
  'TryStatement',
  'InlineAssembly',
]);

interface Node {
  nodeType?: unknown;
  src?: unknown;
  [key: string]: unknown;
}

export function rangeOf(node: unknown): Range | undefined {
  const src = (node as Node | null | undefined)?.src;
  if (typeof src !== 'string') return undefined;
  const [s, l] = src.split(':');
  const start = Number(s);
  const length = Number(l);
  return Number.isInteger(start) && Number.isInteger(length) && start >= 0 && length >= 0 ? { start, length } : undefined;
}

export function contains(outer: Range, inner: Range): boolean {
  return inner.start >= outer.start && inner.start + inner.length <= outer.start + outer.length;
}

function branchOf(n: Node, r: Range): Branch | undefined {
  const t = n.nodeType;
  if (t === 'IfStatement') {
    const trueBody = rangeOf(n.trueBody);
    if (!trueBody) return undefined;
    return { ...r, kind: 'if', sides: [trueBody, rangeOf(n.falseBody)], probe: trueBody, inside: 0 };
  }
  if (t === 'ForStatement' || t === 'WhileStatement' || t === 'DoWhileStatement') {
    const body = rangeOf(n.body);
    if (!body || n.condition === null || n.condition === undefined) return undefined;
    return { ...r, kind: 'loop', sides: [body, undefined], probe: body, inside: 0 };
  }
  if (t === 'Conditional') {
    const yes = rangeOf(n.trueExpression);
    const no = rangeOf(n.falseExpression);
    if (!yes) return undefined;
    return { ...r, kind: 'ternary', sides: [yes, no], probe: yes, inside: 0 };
  }
  if (t === 'BinaryOperation' && (n.operator === '&&' || n.operator === '||')) {
    const left = rangeOf(n.leftExpression);
    const right = rangeOf(n.rightExpression);
    if (!right) return undefined;
    // Sides in source order, as solidity-coverage lists them: `&&` evaluates its right side when
    // the left is true; `||` short-circuits when the left is true.
    return n.operator === '&&'
      ? { ...r, kind: 'and', sides: [right, left], probe: right, inside: 0 }
      : { ...r, kind: 'or', sides: [left, right], probe: right, inside: 1 };
  }
  if (t === 'FunctionCall') {
    const callee = n.expression as Node | undefined;
    if (callee?.nodeType === 'Identifier' && (callee.name === 'require' || callee.name === 'assert')) {
      return { ...r, kind: 'require', sides: [r, r], probe: r, inside: 1 };
    }
  }
  return undefined;
}

function functionOf(n: Node, r: Range): Fn | undefined {
  if (n.nodeType !== 'FunctionDefinition' && n.nodeType !== 'ModifierDefinition') return undefined;
  const body = rangeOf(n.body);
  if (!body) return undefined;
  const kind = typeof n.kind === 'string' ? n.kind : 'function';
  const name = typeof n.name === 'string' && n.name !== '' ? n.name : kind;
  return { ...r, name, decl: { start: r.start, length: Math.max(0, body.start - r.start) } };
}

/** The coverage items of one file's AST (`ast`: solc's compact JSON). */
export function fileModel(file: SourceText, ast: unknown): FileModel {
  const statements: Range[] = [];
  const functions: Fn[] = [];
  const branches: Branch[] = [];
  const contracts: Array<{ name: string; range: Range }> = [];
  const visit = (value: unknown, inBody: boolean): void => {
    if (Array.isArray(value)) {
      for (const v of value) visit(v, inBody);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const n = value as Node;
    const r = rangeOf(n);
    const type = typeof n.nodeType === 'string' ? n.nodeType : '';
    if (type.startsWith('Yul')) return;
    if (r) {
      if (type === 'ContractDefinition' && typeof n.name === 'string') contracts.push({ name: n.name, range: r });
      const fn = functionOf(n, r);
      if (fn) functions.push(fn);
      if (inBody || fn) {
        if (STATEMENTS.has(type)) statements.push(r);
        const b = inBody ? branchOf(n, r) : undefined;
        if (b) branches.push(b);
      }
      if (fn) {
        visit(n.body, true);
        return;
      }
    }
    for (const [k, v] of Object.entries(n)) if (k !== 'src' && v !== null && typeof v === 'object') visit(v, inBody);
  };
  visit(ast, false);
  const byStart = (a: Range, b: Range) => a.start - b.start || b.length - a.length;
  statements.sort(byStart);
  functions.sort(byStart);
  branches.sort(byStart);
  // Names as `Contract.function`, the way reports list them.
  const named = functions.map((f) => {
    const c = contracts.find((k) => contains(k.range, f));
    return c ? { ...f, name: `${c.name}.${f.name}` } : f;
  });
  return { file, statements, functions: named, branches };
}
