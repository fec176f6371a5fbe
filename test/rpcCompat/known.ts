/**
 * The rpc-compat tests node-rpc does not pass, each with the reason (the README's "Conformance"
 * section says the same). The runner fails when a test outside this list fails, and when a test
 * on it passes.
 */
export const KNOWN: Record<string, string> = {};
