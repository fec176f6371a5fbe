/** Boot a dev node and serve it: used by `node-rpc dev` and by the tests. */
import type { ChainConfig } from '../chain/config.js';
import { defaultConfig } from '../chain/config.js';
import { DevNode } from '../chain/node.js';
import { Dispatcher, type CallObserver } from '../rpc/dispatch.js';
import { createMethodTable } from '../rpc/methods/index.js';
import { startServer, type RpcServer } from '../server/server.js';
import { VERSION } from './version.js';

export interface StartOptions {
  host?: string;
  port?: number;
  chain?: Partial<ChainConfig>;
  observe?: CallObserver;
}

export interface Running {
  node: DevNode;
  server: RpcServer;
  dispatcher: Dispatcher;
  close(): Promise<void>;
}

export async function startDev(options: StartOptions = {}): Promise<Running> {
  const node = await DevNode.create(defaultConfig(options.chain));
  const dispatcher = new Dispatcher(createMethodTable(node, VERSION), options.observe);
  const server = await startServer(dispatcher, { host: options.host ?? '127.0.0.1', port: options.port ?? 8545 });
  return {
    node,
    server,
    dispatcher,
    close: async () => {
      node.close();
      await server.close();
    },
  };
}
