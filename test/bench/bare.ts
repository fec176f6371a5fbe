// The bare node:http server the bench's floors are measured against: a dozen lines, no Ethereum.
// It reads each request's body, parses it, and answers the request's id with a fixed result, the
// least any Node HTTP JSON-RPC server does. Run in a process of its own (`startBare`).

/**
 * The server's source, for `node -e`: it answers every request with `result` (a JSON string) and
 * takes its port as its last argument. With `awakeModule` it also stays awake between requests by
 * the node's rule (src/server/awake.ts), imported from there (an ES module then).
 */
export function bareServer(result: string, awakeModule?: string): string {
  return `
${awakeModule === undefined ? "const http = require('node:http');" : `import http from 'node:http';\nimport { StayAwake } from ${JSON.stringify(awakeModule)};\nconst awake = new StayAwake();`}
const answer = (id) => JSON.stringify({ jsonrpc: '2.0', id, result: ${JSON.stringify(result)} });
http.createServer({ keepAliveTimeout: 5000, noDelay: true }, (req, res) => {
  ${awakeModule === undefined ? '' : "awake.started();\n  res.on('close', awake.ended);"}
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = answer(JSON.parse(Buffer.concat(chunks).toString('utf8')).id);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
}).listen(Number(process.argv.at(-1)), '127.0.0.1', () => process.stdout.write('up\\n'));
`;
}
