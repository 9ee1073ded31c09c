#!/usr/bin/env node
'use strict';
require('./ensure-built').ensureBuilt();
require('../dist/src/cli/main.js');
