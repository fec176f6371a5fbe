/**
 * A fork point: an upstream JSON-RPC node and one of its blocks. The dev chain continues from that
 * block: its state is read from the upstream on demand (upstream.ts, cached), its history (blocks,
 * transactions, receipts, logs at or below the fork block) is the upstream's (`forward`, cached),
 * and the first local block's parent is the fork block.
 */
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { ChainError } from '../core/errors.js';
import { ForkUpstreamError, UpstreamClient, displayUrl, parseUpstreamUrl, type UpstreamOptions } from './client.js';
import { DiskCache } from './diskCache.js';
import { UpstreamState, quantity } from './upstream.js';
import type { Upstream } from '../engine/upstream.js';

export interface ForkOptions extends UpstreamOptions {
  /** Block to fork at (default: the upstream's latest). */
  blockNumber?: bigint;
  /** The upstream's chain id, when known (skips asking for it: with a pinned block and a warm cache, start-up reads nothing). */
  chainId?: bigint;
  /** Directory of the on-disk cache (default: none). */
  cacheDir?: string;
  /**
   * Longest a state read waits for the upstream before failing with -32000 (default 4 s); the
   * fetch goes on, and its answer serves later reads.
   */
  readDeadlineMs?: number;
}

/** The fork block's header fields the local chain builds on. */
export interface ForkHeader {
  number: bigint;
  hash: Uint8Array;
  parentHash: Uint8Array;
  timestamp: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  baseFeePerGas?: bigint;
  excessBlobGas?: bigint;
  blobGasUsed?: bigint;
  miner: Uint8Array;
  mixHash?: Uint8Array;
  parentBeaconBlockRoot?: Uint8Array;
}

/** Retries for the requests made while starting: an unreachable upstream should fail fast. */
const START_RETRIES = 2;

export class Fork implements Upstream {
  /** History answers, by request. */
  private readonly answers = new Map<string, unknown>();
  private readonly inflight = new Map<string, Promise<unknown>>();
  private readonly hashes = new Map<bigint, Uint8Array>();

  private constructor(
    readonly options: ForkOptions,
    readonly client: UpstreamClient,
    readonly chainId: bigint,
    readonly header: ForkHeader,
    readonly state: UpstreamState,
    private readonly disk: DiskCache | undefined,
  ) {
    this.hashes.set(header.number, header.hash);
  }

  /**
   * Connect: learn the chain id and the fork block (unless given and cached) and load the disk
   * cache. An unreachable upstream or a missing block is a ChainError saying so.
   */
  static async open(options: ForkOptions): Promise<Fork> {
    parseUpstreamUrl(options.url);
    const client = new UpstreamClient(options);
    try {
      const retries = Math.min(options.retries ?? START_RETRIES, START_RETRIES);
      const [chainId, number] = await Promise.all([
        options.chainId ?? client.request('eth_chainId', [], quantity, retries),
        options.blockNumber ?? client.request('eth_blockNumber', [], quantity, retries),
      ]);
      const disk = options.cacheDir !== undefined ? new DiskCache(options.cacheDir, chainId, number) : undefined;
      const entries = disk?.load() ?? [];
      let raw = entries.find((e) => e.k === 'header')?.v;
      if (raw === undefined) {
        raw = await client.request('eth_getBlockByNumber', ['0x' + number.toString(16), false], undefined, retries);
        if (raw === null || raw === undefined) {
          const head = await client.request('eth_blockNumber', [], quantity, retries);
          throw new ChainError(`fork block ${number} does not exist upstream (its latest block is ${head})`);
        }
        disk?.add({ k: 'header', v: raw });
      }
      const header = parseHeader(raw);
      if (header.number !== number) throw new ForkUpstreamError(`fork upstream failed: asked for block ${number}, got block ${header.number}`);
      const state = new UpstreamState(client, '0x' + number.toString(16), disk, options.readDeadlineMs);
      const fork = new Fork(options, client, chainId, header, state, disk);
      for (const e of entries) {
        if (e.k === 'h') fork.hashes.set(BigInt(e.v[0]), hexToBytes(e.v[1] as `0x${string}`));
        else if (e.k === 'r') fork.answers.set(e.v[0], e.v[1]);
        else state.load(e);
      }
      return fork;
    } catch (err) {
      client.close();
      throw err;
    }
  }

  get number(): bigint {
    return this.header.number;
  }

  get hash(): Uint8Array {
    return this.header.hash;
  }

  get hashHex(): string {
    return bytesToHex(this.header.hash);
  }

  /** The upstream URL, fit for display. */
  get url(): string {
    return this.client.displayUrl;
  }

  /** Where the disk cache of this fork point lives, if one is used. */
  get cachePath(): string | undefined {
    return this.disk?.path;
  }

  /** Switch to another upstream serving the same chain (anvil_setRpcUrl); caches stay. */
  setUrl(url: string): void {
    this.client.setUrl(url);
    this.options.url = url;
  }

  /** Hash of upstream block `n` (at or below the fork block), for BLOCKHASH. */
  async blockHash(n: bigint): Promise<Uint8Array> {
    const known = this.hashes.get(n);
    if (known) return known;
    if (n < 0n || n > this.number) throw new ChainError(`block ${n} is not part of the fork's history`);
    const block = (await this.forward('eth_getBlockByNumber', ['0x' + n.toString(16), false])) as { hash?: unknown } | null;
    if (!block || typeof block.hash !== 'string') throw new ForkUpstreamError(`fork upstream failed: block ${n} is missing upstream`);
    const hash = hexToBytes(block.hash as `0x${string}`);
    this.hashes.set(n, hash);
    this.disk?.add({ k: 'h', v: ['0x' + n.toString(16), block.hash] });
    return hash;
  }

  /** Number of the upstream block with this hash, if it is part of the fork's history; else null. */
  async numberOfHash(hash: Uint8Array): Promise<bigint | null> {
    const block = (await this.forward('eth_getBlockByHash', [bytesToHex(hash), false])) as { number?: unknown } | null;
    if (!block || typeof block.number !== 'string') return null;
    const n = BigInt(block.number);
    return n <= this.number ? n : null;
  }

  /**
   * Ask the upstream about its history at or below the fork block (the caller makes sure of that),
   * answers cached: such history does not change.
   */
  forward(method: string, params: unknown[]): Promise<unknown> {
    const key = method + JSON.stringify(params);
    if (this.answers.has(key)) return Promise.resolve(this.answers.get(key));
    let p = this.inflight.get(key);
    if (p === undefined) {
      p = this.client.request(method, params).then(
        (result) => {
          this.inflight.delete(key);
          this.answers.set(key, result);
          this.disk?.add({ k: 'r', v: [key, result] });
          return result;
        },
        (err: unknown) => {
          this.inflight.delete(key);
          throw err;
        },
      );
      this.inflight.set(key, p);
    }
    return p;
  }

  /** Write the disk cache and close the connection. */
  close(): void {
    this.disk?.close();
    this.client.close();
  }
}

function parseHeader(raw: unknown): ForkHeader {
  if (!raw || typeof raw !== 'object') throw new ForkUpstreamError('fork upstream failed: the fork block is not a block object');
  const b = raw as Record<string, unknown>;
  const q = (name: string): bigint => {
    const v = b[name];
    if (typeof v !== 'string' || !/^0x[0-9a-fA-F]+$/.test(v)) throw new ForkUpstreamError(`fork upstream failed: the fork block has no valid ${name}`);
    return BigInt(v);
  };
  const oq = (name: string): bigint | undefined => (b[name] === undefined || b[name] === null ? undefined : q(name));
  const d = (name: string, size?: number): Uint8Array => {
    const v = b[name];
    if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(v) || (size !== undefined && v.length !== 2 + 2 * size)) {
      throw new ForkUpstreamError(`fork upstream failed: the fork block has no valid ${name}`);
    }
    return hexToBytes(v as `0x${string}`);
  };
  const od = (name: string, size: number): Uint8Array | undefined => (b[name] === undefined || b[name] === null ? undefined : d(name, size));
  return {
    number: q('number'),
    hash: d('hash', 32),
    parentHash: d('parentHash', 32),
    timestamp: q('timestamp'),
    gasLimit: q('gasLimit'),
    gasUsed: q('gasUsed'),
    baseFeePerGas: oq('baseFeePerGas'),
    excessBlobGas: oq('excessBlobGas'),
    blobGasUsed: oq('blobGasUsed'),
    miner: d('miner', 20),
    mixHash: od('mixHash', 32),
    parentBeaconBlockRoot: od('parentBeaconBlockRoot', 32),
  };
}

export { displayUrl };
