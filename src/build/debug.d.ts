// `debug` ships no types; the bundle's shim (debugOnce.ts) passes its export through and reads one setting.
declare module 'debug' {
  const createDebug: {
    (namespace: string): unknown;
    useColors(): boolean;
  };
  export default createDebug;
}
