/** A call block's header as sent to call workers: its RLP, under an id the workers cache it by. */
import type { Block } from '@ethereumjs/block';

const sent = new WeakMap<Block, { id: number; bytes: Uint8Array }>();
let nextId = 1;

export function headerOf(block: Block): { id: number; bytes: Uint8Array } {
  let h = sent.get(block);
  if (h === undefined) {
    h = { id: nextId++, bytes: block.header.serialize() };
    sent.set(block, h);
  }
  return h;
}
