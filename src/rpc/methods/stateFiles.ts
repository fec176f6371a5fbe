/** anvil_dumpState / anvil_loadState (and their hardhat names): the chain as a state document. */
import type { StateFiles } from '../../chain/api.js';
import { decodeStateBlob, encodeStateBlob } from '../../chain/controls/stateFile.js';
import { bool, data, optional } from '../codecs.js';
import { method, type MethodDef } from '../registry.js';

export function stateFileMethods(files: StateFiles, version: string): MethodDef[] {
  return [
    /**
     * The whole chain (accounts and history) in anvil's format, gzip-compressed JSON as 0x-hex.
     * anvil's optional flag (keep historical states) is accepted; older states are never held here.
     */
    method('anvil_dumpState', [optional(bool)], async () => encodeStateBlob(await files.dumpState(`node-rpc/${version}`)), { aliases: ['hardhat_dumpState'] }),
    /**
     * Load a dump (gzip or plain JSON as 0x-hex; anvil's dumps give their accounts): accounts are
     * written over the live state; the history replaces the chain when it is longer.
     */
    method('anvil_loadState', [data], async (blob) => {
      await files.loadState(decodeStateBlob(blob));
      return true;
    }, { aliases: ['hardhat_loadState'] }),
  ];
}
