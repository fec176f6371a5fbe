/** Speed patches to @ethereumjs/tx: calldata gas, computed for every call and transaction. */
import type { Patch } from '../patchDeps.js';

const ESM = '@ethereumjs/tx/dist/esm';

export const TX_PATCHES: Patch[] = [
  {
    id: 'tx-floor-tokens-count',
    file: `${ESM}/util/intrinsic.js`,
    why:
      'countCalldataFloorTokens (EIP-7623 calldata floor, every transaction) added a BigInt per ' +
      'calldata byte. Counting in numbers and converting once gives the same count. The count comes ' +
      'from countZeroBytes, which remembers the last data array it counted: one transaction counts ' +
      'its calldata three times (the floor, and the data gas for the intrinsic gas and again for the ' +
      'EIP-8037 gas dimensions), ~10 µs each for 3 KB. Transaction data is never modified.',
    edits: [
      {
        find: `import { Capability } from "../types.js";`,
        replace: `import { Capability } from "../types.js";
let lastCountedData;
let lastZeroBytes = 0;
/** The number of zero bytes in \`data\`, remembered for the last array counted (never modified). */
export function countZeroBytes(data) {
    if (data !== lastCountedData) {
        let zeros = 0;
        for (let i = 0; i < data.length; i++) {
            if (data[i] === 0)
                zeros++;
        }
        lastZeroBytes = zeros;
        lastCountedData = data;
    }
    return lastZeroBytes;
}`,
      },
      {
        find: `        for (let i = 0; i < tx.data.length; i++) {
            tokens += tx.data[i] === 0 ? 1n : 4n;
        }`,
        replace: `        const data = tx.data;
        const zeros = countZeroBytes(data);
        tokens = BigInt(zeros + (data.length - zeros) * 4);`,
      },
    ],
  },
  {
    id: 'tx-data-gas-count',
    file: `${ESM}/capabilities/legacy.js`,
    why:
      'getDataGas added a BigInt per calldata byte, and runs twice per transaction (intrinsic gas, ' +
      'EIP-8037 gas dimensions): ~40 µs for 3.4 KB of calldata. Counting the zero bytes once ' +
      '(countZeroBytes, see tx-floor-tokens-count) and multiplying gives the same sum.',
    edits: [
      {
        find: `import { getCalldataFloorGas, getEip2780RecipientRegularGas, getEip7702IntrinsicAuthGas, getMinimumGasLimit, } from "../util/intrinsic.js";`,
        replace: `import { countZeroBytes, getCalldataFloorGas, getEip2780RecipientRegularGas, getEip7702IntrinsicAuthGas, getMinimumGasLimit, } from "../util/intrinsic.js";`,
      },
      {
        find: `    let cost = BIGINT_0;
    for (let i = 0; i < tx.data.length; i++) {
        tx.data[i] === 0 ? (cost += txDataZero) : (cost += txDataNonZero);
    }`,
        replace: `    const data = tx.data;
    const zeros = countZeroBytes(data);
    let cost = BigInt(zeros) * txDataZero + BigInt(data.length - zeros) * txDataNonZero;`,
      },
    ],
  },
];
