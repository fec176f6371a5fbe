// Several chains in one test file: each createNode is its own chain, with its own id and state.
import assert from 'node:assert/strict';
import { createNode } from 'node-rpc';

describe('two chains in one file', () => {
  it('two chains side by side, and one served over HTTP for a tool that wants a URL', async () => {
    const [l1, l2] = await Promise.all([createNode({ chainId: 1 }), createNode({ chainId: 10, blockTime: 0.1 })]);
    try {
      assert.equal(await l1.provider.request({ method: 'eth_chainId' }), '0x1');
      assert.equal(await l2.provider.request({ method: 'eth_chainId' }), '0xa');
      await l1.provider.request({ method: 'anvil_mine', params: ['0x5'] });
      assert.equal(await l1.provider.request({ method: 'eth_blockNumber' }), '0x5');
      const { url } = await l2.listen({ port: 0 });
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}' });
      assert.equal((await res.json()).result, '0xa');
    } finally {
      await Promise.all([l1.close(), l2.close()]);
    }
  });
});
