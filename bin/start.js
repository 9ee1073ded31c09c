#!/usr/bin/env node
'use strict';
// `npm start`: build if needed, then migrate, seed and serve in one process.
require('./ensure-built').ensureBuilt();
process.argv.push('--migrate', '--seed');
require('../dist/src/main.js');
