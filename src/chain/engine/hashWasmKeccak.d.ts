// The keccak part of hash-wasm alone (its main entry bundles every algorithm it has).
declare module 'hash-wasm/dist/keccak.umd.min.js' {
  import type { createKeccak } from 'hash-wasm';
  const keccakOnly: { createKeccak: typeof createKeccak };
  export default keccakOnly;
}
