/**
 * The package's public types: createNode's options and the node it returns. Self-contained (no
 * imports), so the build writes them out as the package's declarations.
 */

/** `fork`: fork the chain served at `url` (the `--fork-*` flags). */
export interface ForkOptions {
  /** The upstream's http(s) URL (`--fork-url`). */
  url: string;
  /** Block to fork at (`--fork-block-number`; default: the upstream's latest). */
  blockNumber?: number | bigint | string;
  /** HTTP headers sent to the upstream (`--fork-header`). */
  headers?: Record<string, string>;
  /** Retries of a failed upstream request (`--fork-retries`, default 5). */
  retries?: number;
  /** Time limit of one upstream request in milliseconds (`--fork-timeout`, default 45,000). */
  timeout?: number;
  /** The upstream's chain id, so it need not be asked (`--fork-chain-id`). */
  chainId?: number | bigint;
  /** Keep what is read from the upstream in this folder (`--fork-cache`). */
  cache?: string;
}

/** createNode's options: the `node-rpc dev` flags in camelCase, in the flags' units. */
export interface NodeOptions {
  /** Chain id (`--chain-id`, default 984; with `fork`, the upstream's). */
  chainId?: number | bigint;
  /** Number of dev accounts (`--accounts`, default 10). */
  accounts?: number;
  /** Balance of each dev account in ether (`--balance`, default 10000), e.g. 10000, '0.5'. */
  balance?: number | string;
  /** BIP-39 mnemonic of the dev accounts (`--mnemonic`, default "test test … junk"). */
  mnemonic?: string;
  /** Derivation path prefix, the account index appended (`--derivation-path`, default m/44'/60'/0'/0/). */
  derivationPath?: string;
  /** Hardfork rules (`--hardfork`: any mainnet fork from frontier to bpo2, or latest, any case, in anvil's, Hardhat's and geth's spellings; default bpo2, mainnet's current fork). */
  hardfork?: string;
  /** Most bytes of runtime code a contract may deploy (`--code-size-limit`, default 24576); init code may be twice as long. */
  codeSizeLimit?: number;
  /** No limit on deployed code or init code (`--disable-code-size-limit`; hardhat's allowUnlimitedContractSize). Not with codeSizeLimit. */
  disableCodeSizeLimit?: boolean;
  /** Leave out the CREATE2 deployer at 0x4e59b44847b379578588920ca78fbf26c0b4956c (`--disable-default-create2-deployer`). */
  disableDefaultCreate2Deployer?: boolean;
  /** Block gas limit (`--gas-limit`, default 30,000,000; with `fork`, the upstream's). */
  gasLimit?: number | bigint | string;
  /** Base fee of the genesis block in wei (`--base-fee`, default 1 gwei). */
  baseFee?: number | bigint | string;
  /** Floor of eth_gasPrice in wei (`--gas-price`, default 7 gwei). */
  gasPrice?: number | bigint | string;
  /** Most logs one eth_getLogs may return (`--max-logs`, default 10,000). */
  maxLogs?: number;
  /** Most struct-log steps of one trace (`--max-trace-steps`, default 250,000; 0 = no cap). */
  maxTraceSteps?: number;
  /** Gas cap of eth_call and the like (`--rpc-gas-cap`, default max(50M, block gas limit)). */
  rpcGasCap?: number | bigint | string;
  /** eth_call worker threads (`--call-workers`; default 0 in a library node: calls run on the caller's thread). */
  callWorkers?: number;
  /** Wall-clock limit of one eth_call in milliseconds (`--call-timeout`, default 5,000; 0 = none). */
  callTimeout?: number;
  /** Polling filters not polled for this many seconds expire (`--filter-timeout`, default 300). */
  filterTimeout?: number;
  /** Mine a block every this many seconds instead of on every transaction (`--block-time`). */
  blockTime?: number;
  /** False: mine only on request, transactions wait in the pool (`--no-mining`; default true). */
  mining?: boolean;
  /** Order of transactions in a block (`--order`: 'fees' (default) or 'fifo'). */
  order?: 'fees' | 'fifo';
  /** With automine, a failed transaction is still mined and its eth_sendTransaction / eth_sendRawTransaction answers -32000 with the revert data, as the hardhat node (`--throw-on-transaction-failures`, default false). */
  throwOnTransactionFailures?: boolean;
  /** Fork an upstream chain (`--fork-url` and the `--fork-*` flags). */
  fork?: ForkOptions;
  /** State file to load at start (`--load-state`). */
  loadState?: string;
  /**
   * A genesis file in geth's format (`--init`): block 0 is the file's (its accounts only, geth's
   * hash); its chain id, gas limit, timestamp and fork schedule are the chain's unless chainId,
   * gasLimit or hardfork are given. The dev accounts sign but hold only what the file gives them.
   */
  init?: string;
  /** RLP-encoded blocks (geth's `export` / `import` format) executed, checked and served on top of genesis at start (`--import`). */
  import?: string;
  /** State file written when the node closes (`--dump-state`). */
  dumpState?: string;
  /** Loaded at start when it exists, written when the node closes (`--state`). */
  state?: string;
  /** Also write the state file every this many seconds (`--state-interval`). */
  stateInterval?: number;
  /** Build output folders naming contracts in the log and the explorer (`--artifacts`). */
  artifacts?: string[];
  /**
   * Record Solidity coverage of mined transactions, eth_calls and debug traces, from the artifacts'
   * source maps and ASTs (`--coverage <dir>`): a folder gets `lcov.info` and `coverage-final.json`
   * when the node closes; true records only (read with node_coverage).
   */
  coverage?: string | boolean;
  /**
   * Gas per contract and function of mined transactions, and deployments' gas and code size
   * (`--gas-report [file]`): a file gets the JSON when the node closes; true keeps it in memory
   * (read with node_gasReport). The table is printed on close when the node logs.
   */
  gasReport?: string | boolean;
  /** Serve the block explorer on GET / once listening (`--no-explorer` = false; default true). */
  explorer?: boolean;
  /** The whole web3_clientVersion answer (`--client-version`). */
  clientVersion?: string;
  /** The request and block log: true prints it to stdout, a function gets each line (default: none). */
  logging?: boolean | ((line: string) => void);
  /** With `logging`: print only the node's own failures, internal errors (`--silent`). */
  silent?: boolean;
}

/** A JSON-RPC call of an EIP-1193 provider. */
export interface RequestArguments {
  readonly method: string;
  readonly params?: readonly unknown[] | object;
}

/** What a failed request rejects with (EIP-1193's ProviderRpcError): the JSON-RPC error's fields. */
export interface ProviderRpcError extends Error {
  readonly code: number;
  readonly data?: unknown;
}

/** A subscription's notification, delivered as a `message` event. */
export interface ProviderMessage {
  readonly type: 'eth_subscription';
  readonly data: { readonly subscription: string; readonly result: unknown };
}

/** The node as an EIP-1193 provider, in the same process. */
export interface EIP1193Provider {
  request(args: RequestArguments): Promise<any>;
  on(event: 'message', listener: (message: ProviderMessage) => void): this;
  on(event: 'connect', listener: (info: { chainId: string }) => void): this;
  on(event: 'disconnect', listener: (error: ProviderRpcError) => void): this;
  on(event: 'chainChanged', listener: (chainId: string) => void): this;
  on(event: string, listener: (...args: any[]) => void): this;
  removeListener(event: string, listener: (...args: any[]) => void): this;
}

/** A dev account: its checksummed address and its private key. */
export interface NodeAccount {
  readonly address: `0x${string}`;
  readonly privateKey: `0x${string}`;
}

export interface ListenOptions {
  /** Port (default 8545; 0 = any free port). */
  port?: number;
  /** Interface (default 127.0.0.1). */
  host?: string;
}

export interface Node {
  /** EIP-1193 provider: `request({ method, params })`, `on('message' | 'connect' | 'disconnect' | 'chainChanged')`. */
  readonly provider: EIP1193Provider;
  /** The dev accounts. */
  readonly accounts: readonly NodeAccount[];
  /** Serve this node over HTTP and WebSocket on one port. */
  listen(options?: ListenOptions): Promise<{ url: string; ws: string }>;
  /** Write the state file if one is set, stop every timer, worker and socket of the node. */
  close(): Promise<void>;
}
