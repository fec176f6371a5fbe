#!/usr/bin/env node
// Thin launcher: the CLI is bundled into dist/cli.js for a fast start.
import '../dist/cli.js';
