/**
 * Parsing and validation of the debug_trace* options object (geth's TraceConfig /
 * TraceCallConfig, with the tracer-specific `tracerConfig`).
 */
import { ChainError } from '../chain/core/errors.js';
import type { SourceLocator } from '../chain/core/sources.js';
import { stepTracerOptions, type StepTracerOptions } from './stepTracer.js';
import type { CoverageRecorder } from '../chain/core/coverage.js';
import { JS_TRACERS } from './jsNamed.js';

export interface StructLoggerOptions {
  enableMemory: boolean;
  disableStack: boolean;
  disableStorage: boolean;
  enableReturnData: boolean;
  /** geth's `limit`: record at most this many steps (0 = unlimited). */
  limit: number;
}

export interface CallTracerOptions {
  onlyTopCall: boolean;
  withLog: boolean;
}

export interface PrestateTracerOptions {
  diffMode: boolean;
  disableCode: boolean;
  disableStorage: boolean;
  includeEmpty: boolean;
}

export interface FlatCallTracerOptions {
  convertParityErrors: boolean;
  includePrecompiles: boolean;
}

export type TracerSpec =
  | { name: 'structLogger'; options: StructLoggerOptions }
  | { name: 'callTracer'; options: CallTracerOptions }
  | { name: 'flatCallTracer'; options: FlatCallTracerOptions }
  /** A tracer written in JavaScript (geth's API): the `tracer` string itself, or one of geth's named JS tracers. */
  | { name: 'js'; source: string; config: string }
  | { name: 'prestateTracer'; options: PrestateTracerOptions }
  | { name: '4byteTracer' }
  | { name: 'noopTracer' }
  /** node-rpc's own: the call tree with Solidity source locations (sourceTracer.ts). */
  | { name: 'sourceTracer' }
  /** node-rpc's own: the explorer's step debugger (stepTracer.ts). */
  | { name: 'stepTracer'; options: StepTracerOptions }
  | { name: 'muxTracer'; tracers: Array<{ key: string; spec: TracerSpec }> }
  /** OpenEthereum's flat traces (trace_* methods only; not a debug_trace* tracer name). */
  | { name: 'parity' };

/**
 * Whether `tracer` runs as JavaScript: one of geth's named JS tracers, or code (anything that is not
 * a bare name; a bare unknown name is an unknown tracer).
 */
export function isJsTracer(tracer: string): boolean {
  if (Object.hasOwn(JS_TRACERS, tracer)) return true;
  return !(NAMED_TRACERS as readonly string[]).includes(tracer) && !/^[A-Za-z_$][\w$]*$/.test(tracer.trim());
}

/** A validated trace configuration. */
export interface TraceConfig {
  tracer: TracerSpec;
  /** Execution deadline in milliseconds (geth's default is 5s). */
  timeoutMs: number;
  /** The node's cap on struct-log steps (--max-trace-steps); a longer trace fails with -32005. */
  maxSteps?: number;
  /** Source maps of the user's contracts (the sourceTracer's locations). */
  sources?: SourceLocator;
  /** Counts the traced run's instructions (--coverage). */
  coverage?: CoverageRecorder;
}

export const DEFAULT_TIMEOUT_MS = 5000;

const NAMED_TRACERS = ['callTracer', 'flatCallTracer', 'prestateTracer', '4byteTracer', 'noopTracer', 'muxTracer', 'sourceTracer', 'stepTracer'] as const;
type NamedTracer = (typeof NAMED_TRACERS)[number];

function invalid(message: string): never {
  throw new ChainError(message, undefined, -32602);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Match an object's keys against known field names the way Go's encoding/json does
 * (exact match first, then case-insensitive). Unknown keys are rejected.
 */
function fields<K extends string>(obj: Record<string, unknown>, known: readonly K[], where: string): Partial<Record<K, unknown>> {
  const out: Partial<Record<K, unknown>> = {};
  for (const [key, value] of Object.entries(obj)) {
    const field = known.find((k) => k === key) ?? known.find((k) => k.toLowerCase() === key.toLowerCase());
    if (field === undefined) invalid(`${where}: unknown option "${key}"`);
    out[field] = value;
  }
  return out;
}

function bool(value: unknown, name: string, where: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') invalid(`${where}: option "${name}" must be a boolean`);
  return value;
}

function emptyConfig(value: unknown, where: string): void {
  if (value === undefined || value === null) return;
  if (!isPlainObject(value)) invalid(`${where}: tracerConfig must be an object`);
  fields(value, [], where);
}

const UNIT_NS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  'µs': 1e3,
  'μs': 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** Go's time.ParseDuration, in milliseconds; undefined when the text is not a duration. */
export function parseGoDuration(text: string): number | undefined {
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') return undefined;
  let totalNs = 0;
  const part = /^(\d*)(?:\.(\d*))?([^\d.]+)/;
  while (s !== '') {
    const m = part.exec(s);
    if (!m) return undefined;
    const [all, int, frac, unit] = m;
    if (int === '' && (frac === undefined || frac === '')) return undefined;
    const scale = UNIT_NS[unit];
    if (scale === undefined) return undefined;
    const value = Number(`${int === '' ? '0' : int}.${frac ?? '0'}`);
    totalNs += value * scale;
    s = s.slice(all.length);
  }
  return (sign * totalNs) / 1e6;
}

function parseTracer(name: NamedTracer, rawConfig: unknown, path: string): TracerSpec {
  const where = path === '' ? name : `${path}.${name}`;
  switch (name) {
    case 'callTracer': {
      if (rawConfig === undefined || rawConfig === null) return { name, options: { onlyTopCall: false, withLog: false } };
      if (!isPlainObject(rawConfig)) invalid(`${where}: tracerConfig must be an object`);
      const f = fields(rawConfig, ['onlyTopCall', 'withLog'] as const, where);
      return {
        name,
        options: { onlyTopCall: bool(f.onlyTopCall, 'onlyTopCall', where), withLog: bool(f.withLog, 'withLog', where) },
      };
    }
    case 'flatCallTracer': {
      let f: Partial<Record<'convertParityErrors' | 'includePrecompiles', unknown>> = {};
      if (rawConfig !== undefined && rawConfig !== null) {
        if (!isPlainObject(rawConfig)) invalid(`${where}: tracerConfig must be an object`);
        f = fields(rawConfig, ['convertParityErrors', 'includePrecompiles'] as const, where);
      }
      return {
        name,
        options: {
          convertParityErrors: bool(f.convertParityErrors, 'convertParityErrors', where),
          includePrecompiles: bool(f.includePrecompiles, 'includePrecompiles', where),
        },
      };
    }
    case 'prestateTracer': {
      let f: Partial<Record<'diffMode' | 'disableCode' | 'disableStorage' | 'includeEmpty', unknown>> = {};
      if (rawConfig !== undefined && rawConfig !== null) {
        if (!isPlainObject(rawConfig)) invalid(`${where}: tracerConfig must be an object`);
        f = fields(rawConfig, ['diffMode', 'disableCode', 'disableStorage', 'includeEmpty'] as const, where);
      }
      const options: PrestateTracerOptions = {
        diffMode: bool(f.diffMode, 'diffMode', where),
        disableCode: bool(f.disableCode, 'disableCode', where),
        disableStorage: bool(f.disableStorage, 'disableStorage', where),
        includeEmpty: bool(f.includeEmpty, 'includeEmpty', where),
      };
      if (options.diffMode && options.includeEmpty) invalid(`${where}: cannot use diffMode with includeEmpty`);
      return { name, options };
    }
    case '4byteTracer':
    case 'noopTracer':
    case 'sourceTracer':
      emptyConfig(rawConfig, where);
      return { name };
    case 'stepTracer':
      try {
        return { name, options: stepTracerOptions(rawConfig) };
      } catch (err) {
        return invalid((err as Error).message);
      }
    case 'muxTracer': {
      if (rawConfig === undefined || rawConfig === null) return { name, tracers: [] };
      if (!isPlainObject(rawConfig)) invalid(`${where}: tracerConfig must be an object mapping tracer names to their configs`);
      const tracers: Array<{ key: string; spec: TracerSpec }> = [];
      for (const [key, sub] of Object.entries(rawConfig)) {
        if (!(NAMED_TRACERS as readonly string[]).includes(key)) invalid(`${where}: unknown tracer "${key}"`);
        tracers.push({ key, spec: parseTracer(key as NamedTracer, sub, where) });
      }
      tracers.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      return { name, tracers };
    }
  }
}

const TOP_FIELDS = [
  'tracer',
  'tracerConfig',
  'timeout',
  'reexec',
  'disableStack',
  'disableStorage',
  'enableMemory',
  'enableReturnData',
  'limit',
  'overrides',
  // debug_traceCall only; applied by the chain before tracing.
  'stateOverrides',
  'blockOverrides',
  'txIndex',
] as const;

/**
 * Validate a raw debug_trace* config object. Throws ChainError(-32602) naming the offending
 * tracer or option.
 */
export function parseTraceConfig(raw: unknown): TraceConfig {
  if (raw === undefined || raw === null) {
    return {
      tracer: { name: 'structLogger', options: { enableMemory: false, disableStack: false, disableStorage: false, enableReturnData: false, limit: 0 } },
      timeoutMs: DEFAULT_TIMEOUT_MS,
    };
  }
  if (!isPlainObject(raw)) invalid('trace config must be an object');
  const f = fields(raw, TOP_FIELDS, 'trace config');

  let timeoutMs = DEFAULT_TIMEOUT_MS;
  if (f.timeout !== undefined && f.timeout !== null) {
    if (typeof f.timeout !== 'string') invalid('trace config: option "timeout" must be a duration string such as "10s"');
    const ms = parseGoDuration(f.timeout);
    if (ms === undefined) invalid(`trace config: invalid timeout: time: invalid duration "${f.timeout}"`);
    timeoutMs = ms;
  }
  if (f.reexec !== undefined && f.reexec !== null) {
    if (typeof f.reexec !== 'number' || !Number.isInteger(f.reexec) || f.reexec < 0) invalid('trace config: option "reexec" must be a non-negative integer');
  }
  if (f.overrides !== undefined && f.overrides !== null) invalid('trace config: option "overrides" (chain config overrides) is not supported');
  if (f.txIndex !== undefined && f.txIndex !== null) {
    if (typeof f.txIndex !== 'string' || !/^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/.test(f.txIndex)) invalid('trace config: option "txIndex" must be a hex quantity');
  }
  for (const k of ['stateOverrides', 'blockOverrides'] as const) {
    const v = f[k];
    if (v !== undefined && v !== null && !isPlainObject(v)) invalid(`trace config: option "${k}" must be an object`);
  }

  const where = 'trace config';
  const structOptions: StructLoggerOptions = {
    enableMemory: bool(f.enableMemory, 'enableMemory', where),
    disableStack: bool(f.disableStack, 'disableStack', where),
    disableStorage: bool(f.disableStorage, 'disableStorage', where),
    enableReturnData: bool(f.enableReturnData, 'enableReturnData', where),
    limit: 0,
  };
  if (f.limit !== undefined && f.limit !== null) {
    if (typeof f.limit !== 'number' || !Number.isSafeInteger(f.limit) || f.limit < 0) invalid('trace config: option "limit" must be a non-negative integer');
    structOptions.limit = f.limit;
  }

  if (f.tracer === undefined || f.tracer === null) {
    if (f.tracerConfig !== undefined && f.tracerConfig !== null && !isPlainObject(f.tracerConfig)) invalid('trace config: tracerConfig must be an object');
    return { tracer: { name: 'structLogger', options: structOptions }, timeoutMs };
  }
  if (typeof f.tracer !== 'string') invalid('trace config: option "tracer" must be a string');
  if (isJsTracer(f.tracer)) {
    // geth hands a JavaScript tracer its tracerConfig as JSON text (setup's argument).
    const config = f.tracerConfig === undefined || f.tracerConfig === null ? '{}' : JSON.stringify(f.tracerConfig);
    return { tracer: { name: 'js', source: JS_TRACERS[f.tracer] ?? f.tracer, config }, timeoutMs };
  }
  if (!(NAMED_TRACERS as readonly string[]).includes(f.tracer)) invalid(`unknown tracer "${f.tracer}"`);
  return { tracer: parseTracer(f.tracer as NamedTracer, f.tracerConfig, ''), timeoutMs };
}
