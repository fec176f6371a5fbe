#!/usr/bin/env node
// Thin launcher into the bundle (dist/node.cjs), through its loader (dist/load.cjs, from
// src/launch/load.ts), which compiles the bundle from a V8 code cache when a matching one exists.
// CommonJS (bin/package.json says so): an ES module entry point would start Node's ES module loader
// first, several ms of every start for nothing the bundle needs.
'use strict';
const { join } = require('node:path');
const dist = join(__dirname, '..', 'dist');
require(join(dist, 'load.cjs')).loadBundle(join(dist, 'node.cjs')).runCli(process.argv);
