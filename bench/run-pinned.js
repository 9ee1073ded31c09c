#!/usr/bin/env node
'use strict';
// Runs the benchmark's load generator on core 1 (the server gets core 0), where taskset exists.
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const script = path.join(__dirname, 'redirect-bench.js');
const hasTaskset = spawnSync('taskset', ['-c', '1', 'true']).status === 0;
// `npm run bench -- --profile large` hands its arguments on.
const scriptArgs = [script, ...process.argv.slice(2)];
const [command, args] = hasTaskset
  ? ['taskset', ['-c', '1', process.execPath, ...scriptArgs]]
  : [process.execPath, scriptArgs];
process.exitCode = spawnSync(command, args, { stdio: 'inherit' }).status ?? 1;
