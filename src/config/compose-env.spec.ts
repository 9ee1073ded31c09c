import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../..');
const read = (file: string): string => fs.readFileSync(path.join(root, file), 'utf8');

/** docker-compose.yml's services, each with its own lines, read without a YAML parser. */
function composeServices(): Map<string, string> {
  const compose = read('docker-compose.yml');
  const body = compose.slice(compose.indexOf('\nservices:\n'), compose.indexOf('\nnetworks:\n'));
  const services = new Map<string, string>();
  for (const block of body.split(/\n(?= {2}[a-z0-9-]+:)/).slice(1)) {
    const name = /^ {2}([a-z0-9-]+):/.exec(block)?.[1];
    if (name !== undefined) services.set(name, block);
  }
  return services;
}

const REQUIRED_KEY = /^ {6}WEBHOOK_SECRET_KEY: \$\{WEBHOOK_SECRET_KEY:\?[^}]+\}$/m;

describe('docker-compose.yml and the webhook secret key', () => {
  const services = composeServices();

  it('should give every server of the image WEBHOOK_SECRET_KEY from .env, required', () => {
    // The image's CMD is the server; a service with a command of its own (the click worker)
    // runs the CLI, which stores no secret. The scale nodes share app-1's block.
    const servers = [...services].filter(
      ([, block]) => /^ {4}build: \.$/m.test(block) && !/^ {4}command:/m.test(block),
    );
    expect(servers.map(([name]) => name)).toEqual(['app', 'app-1']);
    for (const [, block] of servers) expect(block).toMatch(REQUIRED_KEY);
    for (const name of ['app-2', 'app-3']) {
      expect(services.get(name)).toMatch(/^ {4}<<: \*scale-app$/m);
    }
  });

  it('should document in .env.example that compose reads it from .env', () => {
    const example = read('.env.example');
    const comment = example
      .slice(0, example.search(/^WEBHOOK_SECRET_KEY=/m))
      .split('\n\n')
      .pop();
    expect(comment).toContain('docker compose');
    expect(comment).toContain('.env');
  });

  it("should show in the README a key minted with the CLI inside the app's container", () => {
    const readme = read('README.md');
    const command = /`docker compose exec ([a-z0-9-]+) npx linkpilot (creators create [^`]+)`/.exec(
      readme,
    );
    expect(command).not.toBeNull();
    const [, service, args] = command as RegExpExecArray;
    expect(services.get(service)).toMatch(/^ {4}build: \.$/m);
    // The same arguments as the first requests' `npx linkpilot`, which an e2e test runs.
    expect(readme).toContain(`KEY=$(npx linkpilot ${args} |`);
  });
});
