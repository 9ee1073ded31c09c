#!/usr/bin/env node
'use strict';
// `npm run openapi` writes openapi.json from the sources; `node bin/openapi.js --check` (run by
// `npm run check`) fails when the committed file is stale. The sources are transpiled as they
// are required (TypeScript's transpileModule, no type-check: tsc does that), so neither needs
// dist/ nor a build.
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.resolve(__dirname, '..');
const configFile = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
const { options } = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
const compilerOptions = { ...options, sourceMap: false, inlineSourceMap: false };

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions, fileName: filename });
  module._compile(outputText, filename);
};
require('../src/openapi/write-openapi.ts');
