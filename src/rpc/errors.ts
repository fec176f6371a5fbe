import type { SourceStack } from '../chain/core/sources.js';

/** JSON-RPC 2.0 error codes used by the node. */
export const ErrorCode = {
  Parse: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  Internal: -32603,
  Server: -32000,
  ResourceNotFound: -32001,
  LimitExceeded: -32005,
} as const;

/** An error that becomes a JSON-RPC error object on the wire. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    /** The Solidity stack of a failed execution, for the node's log (never sent). */
    readonly sourceStack?: SourceStack,
  ) {
    super(message);
  }
}

export const invalidParams = (message: string): RpcError => new RpcError(ErrorCode.InvalidParams, message);
export const serverError = (message: string, data?: unknown): RpcError => new RpcError(ErrorCode.Server, message, data);
