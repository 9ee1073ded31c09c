import * as fs from 'node:fs';
import * as path from 'node:path';
import { ENV_VARIABLES } from './env';

const root = path.resolve(__dirname, '../..');
const read = (file: string): string => fs.readFileSync(path.join(root, file), 'utf8');

describe('ENV_VARIABLES documentation', () => {
  it.each(ENV_VARIABLES.map((name) => [name]))(
    'should document %s in .env.example and docs/configuration.md',
    (name) => {
      expect(read('.env.example')).toMatch(new RegExp(`^${name}=`, 'm'));
      expect(read('docs/configuration.md')).toContain(`\`${name}\``);
    },
  );

  it('should read no variable that is not listed', () => {
    const source = read('src/config/env.ts');
    const read_ = [...source.matchAll(/\('([A-Z_]+)'/g)].map((match) => match[1]);
    expect(read_.filter((name) => !(ENV_VARIABLES as readonly string[]).includes(name))).toEqual(
      [],
    );
  });
});
