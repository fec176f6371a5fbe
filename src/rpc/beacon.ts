/**
 * The beacon API routes anvil serves beside JSON-RPC on the same port, for blob-reading tools
 * (rollup derivation, explorers): GET /eth/v1/beacon/genesis, /eth/v1/beacon/blobs/{block_id} and
 * /eth/v1/beacon/blob_sidecars/{block_id}. A dev chain has no beacon chain: a block id's slot is
 * the block number and its root the block hash; `head`, `finalized` and `justified` are the latest
 * block. Answered through the server's generic page hook (the server knows nothing of this).
 */
import type { ChainReads } from '../chain/api.js';
import type { StoredBlock } from '../chain/core/types.js';
import { hex } from '../format/hex.js';

export interface RouteAnswer {
  readonly type: string;
  readonly body: Buffer;
  readonly status: number;
}

const PREFIX = '/eth/v1/beacon/';

const json = (status: number, value: unknown): RouteAnswer => ({ type: 'application/json', status, body: Buffer.from(JSON.stringify(value)) });
const problem = (status: number, message: string): RouteAnswer => json(status, { code: status, message });

/** The routes over `chain`, as a page hook: undefined for any path not under /eth/v1/beacon/. */
export function beaconRoutes(chain: Pick<ChainReads, 'block' | 'config'> & { readonly common: { isActivatedEIP(eip: number): boolean } }) {
  return (path: string, query: string): RouteAnswer | undefined => {
    if (!path.startsWith(PREFIX)) return undefined;
    const [route, id, ...rest] = path.slice(PREFIX.length).split('/');
    if (route === 'genesis' && id === undefined) {
      const genesis = chain.block({ kind: 'tag', tag: 'earliest' });
      return json(200, {
        data: { genesis_time: String(genesis?.block.header.timestamp ?? 0n), genesis_validators_root: '0x' + '00'.repeat(32), genesis_fork_version: '0x00000000' },
      });
    }
    if ((route !== 'blobs' && route !== 'blob_sidecars') || id === undefined || id === '' || rest.length > 0) return problem(404, `no route ${path}`);
    // Fulu (Osaka) replaced the sidecars route by the blobs route, and anvil answers so.
    if (route === 'blob_sidecars' && chain.common.isActivatedEIP(7594)) return problem(410, 'This endpoint is deprecated. Use `GET /eth/v1/beacon/blobs/{block_id}` instead.');
    const block = blockOf(chain, id);
    if (block === 'invalid') return problem(400, `Invalid block ID: ${id}`);
    if (block === undefined) return problem(404, `Block not found: ${id}`);
    const params = new URLSearchParams(query);
    const blobs = blobsOf(block);
    if (route === 'blobs') {
      const wanted = params.getAll('versioned_hashes').flatMap((v) => v.split(',')).filter((v) => v !== '').map((v) => v.toLowerCase());
      const data = blobs.filter((b) => wanted.length === 0 || wanted.includes(b.versionedHash)).map((b) => hex(b.blob));
      return json(200, { execution_optimistic: false, finalized: false, data });
    }
    const indices = params.getAll('indices').flatMap((v) => v.split(',')).filter((v) => v !== '');
    if (indices.some((i) => !/^\d+$/.test(i))) return problem(400, `Invalid indices: ${indices.join(',')}`);
    const data = blobs
      .map((b, index) => ({ index: String(index), blob: hex(b.blob), kzg_commitment: hex(b.commitment), kzg_proof: hex(b.proof) }))
      .filter((s) => indices.length === 0 || indices.includes(s.index));
    return json(200, { execution_optimistic: false, finalized: false, data });
  };
}

/** A block id: a tag, a slot (the block number) or a root (the block hash). */
function blockOf(chain: Pick<ChainReads, 'block'>, id: string): StoredBlock | undefined | 'invalid' {
  if (id === 'head' || id === 'finalized' || id === 'justified') return chain.block({ kind: 'tag', tag: 'latest' });
  if (id === 'genesis') return chain.block({ kind: 'tag', tag: 'earliest' });
  if (/^\d+$/.test(id)) return chain.block({ kind: 'number', number: BigInt(id) });
  if (/^0x[0-9a-fA-F]{64}$/.test(id)) return chain.block({ kind: 'hash', hash: Buffer.from(id.slice(2), 'hex'), requireCanonical: false });
  return 'invalid';
}

/** The blobs of a block in order, with their commitments, versioned hashes and (version 0) proofs. */
function blobsOf(block: StoredBlock): Array<{ blob: Uint8Array; commitment: Uint8Array; proof: Uint8Array; versionedHash: string }> {
  const out: Array<{ blob: Uint8Array; commitment: Uint8Array; proof: Uint8Array; versionedHash: string }> = [];
  for (const t of block.txs) {
    const s = t.sidecar;
    if (s === undefined) continue;
    const hashes = (t.tx as { blobVersionedHashes?: string[] }).blobVersionedHashes ?? [];
    s.blobs.forEach((blob, i) => out.push({ blob, commitment: s.commitments[i], proof: s.proofs[i] ?? new Uint8Array(), versionedHash: hashes[i].toLowerCase() }));
  }
  return out;
}
