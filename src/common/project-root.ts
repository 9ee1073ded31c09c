import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The directory holding package.json, found from this file whether it runs from `src/`
 * (tests) or `dist/src/` (production), so data files under `seeds/` resolve the same way.
 */
export function projectRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`No package.json above ${__dirname}`);
    dir = parent;
  }
  return dir;
}
