#!/usr/bin/env node
'use strict';
// Runs the benchmark's load generator on core 1 (the server gets core 0), where taskset exists.
// `npm run bench -- analytics` runs analytics-bench.js (the redirect beside analytics reads);
// anything else goes to redirect-bench.js (`npm run bench -- --profile large`).
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const isAnalytics = process.argv[2] === 'analytics';
const script = path.join(__dirname, isAnalytics ? 'analytics-bench.js' : 'redirect-bench.js');
const hasTaskset = spawnSync('taskset', ['-c', '1', 'true']).status === 0;
const scriptArgs = [script, ...process.argv.slice(isAnalytics ? 3 : 2)];
const [command, args] = hasTaskset
  ? ['taskset', ['-c', '1', process.execPath, ...scriptArgs]]
  : [process.execPath, scriptArgs];
process.exitCode = spawnSync(command, args, { stdio: 'inherit' }).status ?? 1;
