/** Speed patches to @ethereumjs/tx: calldata gas, computed for every call and transaction. */
import type { Patch } from '../patchDeps.js';

const ESM = '@ethereumjs/tx/dist/esm';

/** Code counting the zero bytes of `tx.data` into `zeros` (a number), at `indent`. */
const countZeros = (indent: string): string =>
  [
    'const data = tx.data;',
    'let zeros = 0;',
    'for (let i = 0; i < data.length; i++) {',
    '    if (data[i] === 0)',
    '        zeros++;',
    '}',
  ]
    .map((line) => indent + line)
    .join('\n');

export const TX_PATCHES: Patch[] = [
  {
    id: 'tx-data-gas-count',
    file: `${ESM}/capabilities/legacy.js`,
    why:
      'getDataGas added a BigInt per calldata byte, and runs twice per transaction (intrinsic gas, ' +
      'EIP-8037 gas dimensions): ~40 µs for 3.4 KB of calldata. Counting the zero bytes and ' +
      'multiplying once gives the same sum.',
    edits: [
      {
        find: `    let cost = BIGINT_0;
    for (let i = 0; i < tx.data.length; i++) {
        tx.data[i] === 0 ? (cost += txDataZero) : (cost += txDataNonZero);
    }`,
        replace: `${countZeros('    ')}
    let cost = BigInt(zeros) * txDataZero + BigInt(data.length - zeros) * txDataNonZero;`,
      },
    ],
  },
  {
    id: 'tx-floor-tokens-count',
    file: `${ESM}/util/intrinsic.js`,
    why:
      'countCalldataFloorTokens (EIP-7623 calldata floor, every transaction) added a BigInt per ' +
      'calldata byte. Counting in numbers and converting once gives the same count.',
    edits: [
      {
        find: `        for (let i = 0; i < tx.data.length; i++) {
            tokens += tx.data[i] === 0 ? 1n : 4n;
        }`,
        replace: `${countZeros('        ')}
        tokens = BigInt(zeros + (data.length - zeros) * 4);`,
      },
    ],
  },
];
