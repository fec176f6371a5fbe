// `debug` ships no types; the bundle's shim (debugOnce.ts) only passes its export through.
declare module 'debug' {
  const createDebug: (namespace: string) => unknown;
  export default createDebug;
}
