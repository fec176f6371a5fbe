/**
 * Speed patches to @ethereumjs/evm: its interpreter awaits every step, so each of the thousands of
 * opcodes a call runs pays a promise and a trip through the microtask queue, whether or not the
 * opcode waits for anything. These let steps that have nothing to wait for run synchronously.
 */
import type { Edit, Patch } from '../patchDeps.js';

const ESM = '@ethereumjs/evm/dist/esm';

/**
 * Dynamic-gas handlers whose bodies never await (memory expansion, warm/cold access, call gas):
 * declared `async` all the same, so each returned a promise. Handlers that do await (SSTORE,
 * CREATE, EXTCODECOPY, SELFDESTRUCT, ...) are left alone; EOF-only opcodes are not active here.
 */
const SYNC_GAS_HANDLERS: Array<[name: string, opcode: string]> = [
  ['EXP', '0x0a'],
  ['KECCAK256', '0x20'],
  ['BALANCE', '0x31'],
  ['CALLDATACOPY', '0x37'],
  ['CODECOPY', '0x39'],
  ['EXTCODESIZE', '0x3b'],
  ['RETURNDATACOPY', '0x3e'],
  ['EXTCODEHASH', '0x3f'],
  ['MLOAD', '0x51'],
  ['MSTORE', '0x52'],
  ['MSTORE8', '0x53'],
  ['SLOAD', '0x54'],
  ['MCOPY', '0x5e'],
  ['LOG', '0xa0'],
  ['CALL', '0xf1'],
  ['CALLCODE', '0xf2'],
  ['RETURN', '0xf3'],
  ['DELEGATECALL', '0xf4'],
  ['STATICCALL', '0xfa'],
  ['REVERT', '0xfd'],
];

const gasHandlerEdit = ([name, opcode]: [string, string]): Edit => ({
  find: `/* ${name} */\n        ${opcode},\n        async function (runState, gas, common) {`,
  replace: `/* ${name} */\n        ${opcode},\n        function (runState, gas, common) {`,
});

export const EVM_PATCHES: Patch[] = [
  {
    id: 'evm-step-revert-data-in-bounds',
    file: `${ESM}/interpreter.js`,
    why:
      'With a step listener attached (tracing), the step event of a REVERT read its revert data from memory ' +
      'before the opcode\'s gas check: a range far past memory (up to 2^256 bytes) threw a RangeError or ' +
      'exhausted the heap, so a transaction that runs out of gas untraced failed differently when traced ' +
      '(11 state tests). The event now carries revert data only when memory already holds the range; the ' +
      'opcode itself then charges and fails exactly as it does untraced.',
    edits: [
      {
        find: `            if (length !== BIGINT_0) {
                error = this._runState.memory.read(Number(offset), Number(length));
            }`,
        replace: `            if (length !== BIGINT_0 && offset + length <= BigInt(this._runState.memory._store.length)) {
                error = this._runState.memory.read(Number(offset), Number(length));
            }`,
      },
    ],
  },
  {
    id: 'evm-plain-steps',
    file: `${ESM}/interpreter.js`,
    why:
      'The interpreter loop awaited runStep for every opcode: an async call, a promise and a microtask ' +
      'per step, a third of a 3,900-step eth_call. When nothing observes the steps (no step listener, ' +
      'debug log, profiler or code-chunk charging) a step now runs synchronously and only a step whose ' +
      'gas handler or opcode actually returned a promise is awaited. Same order of work as runStep: ' +
      'dynamic gas, invalid-opcode check, gas use, program counter, opcode, witness commit.',
    edits: [
      {
        find: `        while (this._runState.programCounter < this._runState.code.length) {`,
        replace: `        // Steps nobody observes run without runStep's hooks, synchronously when nothing is awaited.
        const plainSteps = !this._evm.DEBUG &&
            this.profilerOpts?.enabled !== true &&
            !((this.common.isActivatedEIP(6800) || this.common.isActivatedEIP(7864)) &&
                this._env.chargeCodeAccesses === true);
        while (this._runState.programCounter < this._runState.code.length) {`,
      },
      {
        find: `                await this.runStep(opCodeObj);`,
        replace: `                if (plainSteps && this._evm.events.listenerCount('step') === 0) {
                    const pending = this.runPlainStep(opCodeObj ?? this.lookupOpInfo(opCode));
                    if (pending !== undefined)
                        await pending;
                }
                else {
                    await this.runStep(opCodeObj);
                }`,
      },
      {
        find: `    async runStep(opcodeObj) {`,
        replace: `    /**
     * runStep without hooks: returns undefined when the step is done, or a promise when its gas
     * handler or opcode is waiting for something (state reads).
     */
    runPlainStep(opEntry) {
        const opInfo = opEntry.opcodeInfo;
        if (!opInfo.dynamicGas)
            return this.finishPlainStep(opEntry, opInfo.feeBigInt);
        const gas = opEntry.gasHandler(this._runState, opInfo.feeBigInt, this.common);
        if (gas instanceof Promise)
            return gas.then((g) => this.finishPlainStep(opEntry, g));
        return this.finishPlainStep(opEntry, gas);
    }
    finishPlainStep(opEntry, gas) {
        const opInfo = opEntry.opcodeInfo;
        if (opInfo.isInvalid) {
            throw new EVMError(EVMError.errorMessages.INVALID_OPCODE);
        }
        this.useGas(gas, opInfo);
        this._runState.programCounter++;
        consumeEip7928PostTargetCallOog(this._runState);
        const opFn = opEntry.opHandler;
        const done = opFn(this._runState, this.common);
        if (done instanceof Promise)
            return done.then(() => {
                this._runState.env.accessWitness?.commit();
            });
        this._runState.env.accessWitness?.commit();
    }
    async runStep(opcodeObj) {`,
      },
    ],
  },
  {
    id: 'evm-gas-handlers-sync',
    file: `${ESM}/opcodes/gas.js`,
    why:
      'Dynamic-gas handlers that never await were async functions, so every MLOAD, MSTORE, SLOAD, ' +
      'BALANCE, CALL, ... returned its gas as a promise. As plain functions they return the number; ' +
      'runStep still awaits the result (a no-op on a number), plain steps go on synchronously.',
    edits: SYNC_GAS_HANDLERS.map(gasHandlerEdit),
  },
  {
    id: 'evm-state-reads-maybe',
    file: `${ESM}/interpreter.js`,
    why:
      'storageLoad and getExternalBalance were async, so SLOAD and BALANCE waited a microtask for every ' +
      'read even when the state manager had the value in a cache. A state manager may now offer ' +
      'getStorageMaybe/getAccountMaybe (value, or promise when it must fetch); these return what it ' +
      'gives, and a state manager without them is called as before.',
    edits: [
      {
        find: `    async getExternalBalance(address) {`,
        replace: `    getExternalBalance(address) {`,
      },
      {
        find: `        let account = await this._stateManager.getAccount(address);
        if (!account) {
            account = new Account();
        }
        return account.balance;`,
        replace: `        const sm = this._stateManager;
        const account = sm.getAccountMaybe !== undefined ? sm.getAccountMaybe(address) : sm.getAccount(address);
        if (account instanceof Promise)
            return account.then((a) => (a ? a.balance : BIGINT_0));
        return account ? account.balance : BIGINT_0;`,
      },
      {
        find: `    async storageLoad(key, original = false, trackBAL = true) {`,
        replace: `    storageLoad(key, original = false, trackBAL = true) {`,
      },
      {
        find: `            return this._stateManager.getStorage(this._env.address, key);`,
        replace: `            const sm = this._stateManager;
            return sm.getStorageMaybe !== undefined
                ? sm.getStorageMaybe(this._env.address, key)
                : sm.getStorage(this._env.address, key);`,
      },
    ],
  },
  {
    id: 'evm-sload-balance-maybe',
    file: `${ESM}/opcodes/functions.js`,
    why:
      'SLOAD and BALANCE awaited their read even when it came back as a value (evm-state-reads-maybe): ' +
      'they push it at once, and wait only for a promise. SLOAD takes its key bytes from ' +
      'slotBytesFromStackBigInt (evm-stack-words-once): the array its gas handler made for the same word.',
    edits: [
      {
        find: `import { createAddressFromStackBigInt, describeLocation,`,
        replace: `import { createAddressFromStackBigInt, slotBytesFromStackBigInt, describeLocation,`,
      },
      {
        find: `        async function (runState) {
            const addressBigInt = runState.stack.pop();
            const address = createAddressFromStackBigInt(addressBigInt);
            const balance = await runState.interpreter.getExternalBalance(address);
            runState.stack.push(balance);
        },`,
        replace: `        function (runState) {
            const addressBigInt = runState.stack.pop();
            const address = createAddressFromStackBigInt(addressBigInt);
            const balance = runState.interpreter.getExternalBalance(address);
            if (balance instanceof Promise)
                return balance.then((b) => {
                    runState.stack.push(b);
                });
            runState.stack.push(balance);
        },`,
      },
      {
        find: `        async function (runState) {
            const key = runState.stack.pop();
            const keyBuf = setLengthLeft(bigIntToBytes(key), 32);
            const value = await runState.interpreter.storageLoad(keyBuf);
            const valueBigInt = value.length ? bytesToBigInt(value) : BIGINT_0;
            runState.stack.push(valueBigInt);
        },`,
        replace: `        function (runState) {
            const key = runState.stack.pop();
            const keyBuf = slotBytesFromStackBigInt(key);
            const value = runState.interpreter.storageLoad(keyBuf);
            if (value instanceof Promise)
                return value.then((v) => {
                    runState.stack.push(v.length ? bytesToBigInt(v) : BIGINT_0);
                });
            runState.stack.push(value.length ? bytesToBigInt(value) : BIGINT_0);
        },`,
      },
    ],
  },
  {
    id: 'evm-journal-warm-once',
    file: `${ESM}/journal.js`,
    why:
      'Warming an address or a slot (EIP-2929, every SLOAD, BALANCE, CALL...) asked isWarmed* and then ' +
      'called addWarmed*, each turning the address and the slot into hex keys again: up to five ' +
      'conversions and look-ups where two do. warmAddress/warmStorage do the check and the add in one ' +
      'pass with the same bookkeeping (journal diff, access list) and say whether it was cold. ' +
      'Their address and slot keys come from the memos of util-key-hex-memo.',
    edits: [
      {
        find: `bytesToHex, bytesToUnprefixedHex, hexToBytes,`,
        replace: `bytesToHex, bytesToUnprefixedHex, addressBytesToHex, slotBytesToHex, hexToBytes,`,
      },
      {
        find: `    /**
     * Returns true if the address is warm in the current context.
     */`,
        replace: `    /**
     * Warm an address; true when it was cold (isWarmedAddress, then addWarmedAddress if cold).
     */
    warmAddress(addressArr) {
        const address = addressBytesToHex(addressArr);
        if (this.journal.has(address) || this.alwaysWarmJournal.has(address)) {
            return false;
        }
        this.journal.set(address, new Set());
        this.journalDiff[this.journalDiff.length - 1][1][0].add(address);
        if (this.accessList !== undefined && !this.accessList.has(address)) {
            this.accessList.set(address, new Set());
        }
        return true;
    }
    /**
     * Warm a storage slot; true when it was cold (isWarmedStorage, then addWarmedStorage if cold).
     */
    warmStorage(address, slot) {
        const addressHex = addressBytesToHex(address);
        const slotStr = slotBytesToHex(slot);
        let slots = this.journal.get(addressHex);
        if (slots !== undefined && slots.has(slotStr)) {
            return false;
        }
        const alwaysWarm = this.alwaysWarmJournal.get(addressHex);
        if (alwaysWarm !== undefined && alwaysWarm.has(slotStr)) {
            return false;
        }
        if (slots === undefined) {
            this.addWarmedAddress(address);
            slots = this.journal.get(addressHex);
        }
        slots.add(slotStr);
        const addressSlotMap = this.journalDiff[this.journalDiff.length - 1][1][1];
        let slotsSet = addressSlotMap.get(addressHex);
        if (slotsSet === undefined) {
            slotsSet = new Set();
            addressSlotMap.set(addressHex, slotsSet);
        }
        slotsSet.add(slotStr);
        if (this.accessList !== undefined) {
            this.accessList.get(addressHex).add(slotStr);
        }
        return true;
    }
    /**
     * Returns true if the address is warm in the current context.
     */`,
      },
    ],
  },
  {
    id: 'evm-eip2929-warm-once',
    file: `${ESM}/opcodes/EIP2929.js`,
    why:
      'EIP-2929 access costs use the journal\'s one-pass warmAddress/warmStorage (evm-journal-warm-once) ' +
      'instead of a warm check followed by a separate add.',
    edits: [
      {
        find: `    const isCold = !runState.interpreter.journal.isWarmedAddress(address);`,
        replace: `    return accessCostOf(!runState.interpreter.journal.isWarmedAddress(address), common, chargeGas, isSelfdestruct);
}
/** The cost of an access that was cold or warm (getAddressAccessCost without the look-up). */
function accessCostOf(isCold, common, chargeGas, isSelfdestruct) {`,
      },
      {
        find: `    const cost = getAddressAccessCost(runState, address, common, chargeGas, isSelfdestruct);
    warmAddress(runState, address);
    return cost;`,
        replace: `    return accessCostOf(runState.interpreter.journal.warmAddress(address), common, chargeGas, isSelfdestruct);`,
      },
      {
        find: `    const slotIsCold = !runState.interpreter.journal.isWarmedStorage(address, key);
    // Cold (SLOAD and SSTORE)
    if (slotIsCold) {
        runState.interpreter.journal.addWarmedStorage(address, key);`,
        replace: `    const slotIsCold = runState.interpreter.journal.warmStorage(address, key);
    // Cold (SLOAD and SSTORE)
    if (slotIsCold) {`,
      },
    ],
  },
  {
    id: 'evm-stack-words-once',
    file: `${ESM}/opcodes/util.js`,
    why:
      'BALANCE, EXTCODESIZE, EXTCODEHASH, CALL and the like turn the same stack word into an Address ' +
      'twice, once in the gas handler (peek) and once in the opcode (pop): a hex string, two byte ' +
      'arrays and an object each time; SLOAD does the same with its 32-byte key. The last word and ' +
      'its Address (never modified), and the last slot word and its bytes (only read), are ' +
      'remembered, so the opcode reuses what its gas handler made, and the slot\'s hex key ' +
      '(util-key-hex-memo) is computed once for the journal, the cache and the fork state.',
    edits: [
      {
        find: `export function createAddressFromStackBigInt(value) {
    const maskedValue = value & MASK_160;
    return createAddressFromBigInt(maskedValue);
}`,
        replace: `let lastStackWord;
let lastStackAddress;
export function createAddressFromStackBigInt(value) {
    if (value === lastStackWord && lastStackAddress !== undefined)
        return lastStackAddress;
    const address = createAddressFromBigInt(value & MASK_160);
    lastStackWord = value;
    lastStackAddress = address;
    return address;
}
let lastSlotWord;
let lastSlotBytes;
/** A storage key from the stack as 32 bytes; the same array for the same word twice in a row. */
export function slotBytesFromStackBigInt(value) {
    if (value === lastSlotWord && lastSlotBytes !== undefined)
        return lastSlotBytes;
    const bytes = setLengthLeft(bigIntToBytes(value), 32);
    lastSlotWord = value;
    lastSlotBytes = bytes;
    return bytes;
}`,
      },
      {
        find: `bytesToHex, createAddressFromBigInt, equalsBytes, setLengthLeft, setLengthRight, } from '@ethereumjs/util';`,
        replace: `bigIntToBytes, bytesToHex, createAddressFromBigInt, equalsBytes, setLengthLeft, setLengthRight, } from '@ethereumjs/util';`,
      },
    ],
  },
  {
    id: 'evm-sload-gas-key-once',
    file: `${ESM}/opcodes/gas.js`,
    why:
      'The SLOAD gas handler takes its key bytes from slotBytesFromStackBigInt (evm-stack-words-once), ' +
      'so the opcode after it gets the same array instead of converting the word again.',
    edits: [
      {
        find: `            const key = runState.stack.peek()[0];
            const keyBuf = setLengthLeft(bigIntToBytes(key), 32);
            let charge2929Gas = true;`,
        replace: `            const key = runState.stack.peek()[0];
            const keyBuf = slotBytesFromStackBigInt(key);
            let charge2929Gas = true;`,
      },
      {
        find: `import { createAddressFromStackBigInt, divCeil,`,
        replace: `import { createAddressFromStackBigInt, slotBytesFromStackBigInt, divCeil,`,
      },
    ],
  },
  {
    id: 'evm-result-runstate-lazy',
    file: `${ESM}/evm.js`,
    why:
      'Every frame\'s result carried runState, a merged copy of the interpreter\'s run state, its ' +
      'result and its environment (~40 properties) built by three object spreads (~35 µs a call). ' +
      'Only tracing reads it, at the end of a frame; it is now built, the same way, on first read ' +
      '(result is not reassigned after this point). The setter keeps it assignable like the property was.',
    edits: [
      {
        find: `        message.accessWitness?.commit();
        return {
            ...result,
            runState: {
                ...interpreterRes.runState,
                ...result,
                ...interpreter._env,
            },
            exceptionError: interpreterRes.exceptionError,`,
        replace: `        message.accessWitness?.commit();
        let mergedRunState;
        return {
            ...result,
            get runState() {
                return (mergedRunState ??= { ...interpreterRes.runState, ...result, ...interpreter._env });
            },
            set runState(value) {
                mergedRunState = value;
            },
            exceptionError: interpreterRes.exceptionError,`,
      },
    ],
  },
  {
    id: 'evm-jump-analysis-per-code',
    file: `${ESM}/interpreter.js`,
    why:
      "Each frame analysed its code on its first JUMP: a pass over every byte that finds the jump " +
      "destinations, decodes every PUSH value (through a hex string) and looks up every opcode: " +
      "~20 µs for a 2 KB contract, on every call of it. The analysis depends only on the code and " +
      "the EVM's opcode table, and nothing writes to it, so it is kept per code array (code arrays " +
      "are never modified; a weak map, so it goes with the code) and redone when the table differs.",
    edits: [
      {
        find: `const debugGas = debugDefault('evm:gas');`,
        replace: `const debugGas = debugDefault('evm:gas');
/** Jump analysis of a code array, with the opcode table it was made with. */
const jumpAnalyses = new WeakMap();`,
      },
      {
        find: `    _getValidJumpDestinations(code) {
        const jumps = new Uint8Array(code.length);`,
        replace: `    _getValidJumpDestinations(code) {
        const opcodeMap = this._evm['_opcodeMap'];
        const known = jumpAnalyses.get(code);
        if (known !== undefined && known.opcodeMap === opcodeMap)
            return known;
        const analysis = { ...this._analyseJumps(code), opcodeMap };
        jumpAnalyses.set(code, analysis);
        return analysis;
    }
    _analyseJumps(code) {
        const jumps = new Uint8Array(code.length);`,
      },
    ],
  },
];
