import { createCipheriv, randomBytes } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { runCli } from '../../src/cli/run-cli';
import { WebhookDeliveryWorker } from '../../src/webhooks/webhook-delivery.worker';
import {
  DEVELOPMENT_SECRET_KEY,
  DEVELOPMENT_SECRET_KEY_ID,
  secretKeyIdOf,
} from '../../src/webhooks/webhook-secret-keyring';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { sparePort } from '../support/spare-ports';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_WEBHOOK_SECRET_KEY } from '../support/test-webhook-key';
import { Receiver, verifySignature } from '../support/webhook-receiver';

const ROOT = path.resolve(__dirname, '../..');
/** The key secrets were stored under before the rotation (the test servers' key is the new one). */
const OLD_KEY = 'a7c3e9f1b5d70246813579bdf02468ace13579bdf02468ace13579bdf0246813';
const NEW_KEY = TEST_WEBHOOK_SECRET_KEY;
const prefixOf = (keyId: string): string => `v1:${keyId}:`;
const OLD_PREFIX = prefixOf(secretKeyIdOf(Buffer.from(OLD_KEY, 'hex')));
const NEW_PREFIX = prefixOf(secretKeyIdOf(Buffer.from(NEW_KEY, 'hex')));
const DEVELOPMENT_PREFIX = prefixOf(DEVELOPMENT_SECRET_KEY_ID);

interface Exit {
  code: number | null;
  output: string;
}

/**
 * The built server (`node dist/main.js`, as production runs it) with these variables over
 * the test run's (its DATABASE_URL: PostgreSQL, or the embedded run's PGlite socket), and no
 * webhook key unless given. Stopped with SIGTERM once it says it listens.
 */
async function runBuiltServer(env: Record<string, string>): Promise<Exit> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'linkpilot-keys-'));
  const server = spawn(process.execPath, [path.join(ROOT, 'dist/main.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(await sparePort()),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      PROBES_ENABLED: 'false',
      WEBHOOK_WORKER_ENABLED: 'false',
      CLICK_CONSUMER_ENABLED: 'false',
      FX_PRIMARY_URL: 'http://127.0.0.1:9/fx-primary',
      FX_FALLBACK_URL: 'http://127.0.0.1:9/fx-fallback',
      WEBHOOK_SECRET_KEY: '',
      WEBHOOK_SECRET_KEY_PREVIOUS: '',
      WEBHOOK_ALLOW_DEVELOPMENT_KEY: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes('Linkpilot listening')) server.kill('SIGTERM');
  };
  server.stdout.on('data', collect);
  server.stderr.on('data', collect);
  const killer = setTimeout(() => server.kill('SIGKILL'), 60_000);
  try {
    const code = await new Promise<number | null>((resolve) => server.once('exit', resolve));
    return { code, output };
  } finally {
    clearTimeout(killer);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** What servers wrote before key ids: bare base64 of iv | tag | ciphertext. */
function encryptAsBefore(secret: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

async function rotateCli(
  env: Record<string, string>,
): Promise<{ code: number; json: Record<string, any> }> {
  let stdout = '';
  const code = await runCli(
    ['webhooks', 'rotate-encryption-key', '--json'],
    {
      ...process.env,
      LOG_LEVEL: 'fatal',
      WEBHOOK_SECRET_KEY: '',
      WEBHOOK_SECRET_KEY_PREVIOUS: '',
      ...env,
    },
    { out: (text) => (stdout += text), err: () => undefined },
  );
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return { code, json: JSON.parse(lines[0]) as Record<string, any> };
}

describe('A server on PostgreSQL without WEBHOOK_SECRET_KEY (e2e)', () => {
  beforeAll(() => {
    execFileSync(process.execPath, ['-e', "require('./bin/ensure-built').ensureBuilt()"], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }, 240_000);

  it.each<[string, Record<string, string>, RegExp]>([
    [
      'no key',
      {},
      /WEBHOOK_SECRET_KEY is required when DATABASE_URL is set.*openssl rand -hex 32.*WEBHOOK_ALLOW_DEVELOPMENT_KEY=true/s,
    ],
    ['a key that is not 64 hex digits', { WEBHOOK_SECRET_KEY: 'secret' }, /64 hexadecimal/],
    [
      'a previous key that is not 64 hex digits',
      { WEBHOOK_SECRET_KEY: NEW_KEY, WEBHOOK_SECRET_KEY_PREVIOUS: `${OLD_KEY},nope` },
      /WEBHOOK_SECRET_KEY_PREVIOUS entry 2/,
    ],
  ])('should refuse to start with %s, saying why', async (_name, env, message) => {
    const { code, output } = await runBuiltServer(env);
    expect(code).toBe(1);
    expect(output).toMatch(message);
    expect(output).not.toContain('Linkpilot listening');
    // Refused before the database: no migration, no module started.
    expect(output).not.toMatch(/Migrations applied|Nest application/);
    expect(output).not.toContain(OLD_KEY);
  });

  it('should start with WEBHOOK_ALLOW_DEVELOPMENT_KEY=true and say loudly that it is insecure', async () => {
    const { code, output } = await runBuiltServer({ WEBHOOK_ALLOW_DEVELOPMENT_KEY: 'true' });
    expect(output).toContain('Linkpilot listening');
    expect(output).toMatch(/INSECURE: WEBHOOK_ALLOW_DEVELOPMENT_KEY is on/);
    expect(code).toBe(0);
  });

  it('should refuse in createApp too, which tests and main.ts share', async () => {
    await expect(startTestApp({ WEBHOOK_SECRET_KEY: '' })).rejects.toThrow(
      /WEBHOOK_SECRET_KEY is required when DATABASE_URL is set/,
    );
  });
});

describe('webhooks rotate-encryption-key (e2e)', () => {
  const receiver = new Receiver();
  let nextPath = 1;
  const freshPath = (): string => `/keys-${nextPath++}`;
  const apps: TestApp[] = [];
  /** A server with these variables over the test defaults, closed after the suite. */
  const server = async (env: Record<string, string>): Promise<TestApp> => {
    const app = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      CLICK_CONSUMER_ENABLED: 'false',
      ...env,
    });
    apps.push(app);
    return app;
  };

  beforeAll(() => receiver.start());
  afterAll(async () => {
    for (const app of apps) await app.close();
    await receiver.close();
  });

  const register = async (t: TestApp, creator: TestCreator) => {
    const path = freshPath();
    const response = await t.http
      .post('/v1/webhooks')
      .set('Authorization', creator.authorization)
      .send({ url: receiver.url(path), events: ['link.health_changed'] });
    expect(response.status).toBe(201);
    const { id, secret } = response.body.data.webhook as { id: string; secret: string };
    return { id, secret, path };
  };
  const storedSecrets = async (t: TestApp, id: string) => {
    const [row] = await t.app.get(DataSource).query<{ secret: string; previous: string | null }[]>(
      `SELECT secret_ciphertext AS secret, previous_secret_ciphertext AS previous
           FROM webhook_endpoints WHERE id = $1`,
      [id],
    );
    return row;
  };
  /** Pings the endpoint and delivers: the signature header it got, and the body. */
  const pingAndDeliver = async (
    t: TestApp,
    creator: TestCreator,
    hook: { id: string; path: string },
  ) => {
    await t.http
      .post(`/v1/webhooks/${hook.id}/test`)
      .set('Authorization', creator.authorization)
      .expect(202);
    const before = receiver.on(hook.path).length;
    await t.app.get(WebhookDeliveryWorker).deliverOnce();
    const received = receiver.on(hook.path).slice(before);
    return received.map((request) => ({
      signature: String(request.headers['linkpilot-signature']),
      body: request.body,
    }));
  };

  it('should refuse without WEBHOOK_SECRET_KEY, the key to re-encrypt under', async () => {
    const { code, json } = await rotateCli({});
    expect(code).toBe(1);
    expect(json.error.code).toBe('CONFIG_ERROR');
    expect(json.error.message).toMatch(/WEBHOOK_SECRET_KEY must be set to the new key/);
  });

  it('should re-encrypt every secret under the new key, deliveries signed with the same secrets, the old key no longer needed', async () => {
    // Secrets stored the three ways an installation may hold them today.
    const oldServer = await server({ WEBHOOK_SECRET_KEY: OLD_KEY });
    const developmentServer = await server({
      WEBHOOK_SECRET_KEY: '',
      WEBHOOK_ALLOW_DEVELOPMENT_KEY: 'true',
    });
    const creator = await createCreatorWithKey(oldServer.app, { plan: 'enterprise' });
    // Under the old key, with a previous secret after an API rotation.
    const rotated = await register(oldServer, creator);
    const rotatedAnswer = await oldServer.http
      .post(`/v1/webhooks/${rotated.id}/rotate-secret`)
      .set('Authorization', creator.authorization)
      .expect(200);
    const rotatedSecrets = [rotatedAnswer.body.data.webhook.secret as string, rotated.secret];
    // Under the development key, by a server allowed to use it.
    const development = await register(developmentServer, creator);
    // Under the development key in the format from before key ids (an old embedded install).
    const beforeKeyIds = await register(oldServer, creator);
    await oldServer.app
      .get(DataSource)
      .query(`UPDATE webhook_endpoints SET secret_ciphertext = $2 WHERE id = $1`, [
        beforeKeyIds.id,
        encryptAsBefore(beforeKeyIds.secret, DEVELOPMENT_SECRET_KEY),
      ]);
    // Deleted: its row still holds a secret, which must not stay under the old key.
    const deleted = await register(oldServer, creator);
    await oldServer.http
      .delete(`/v1/webhooks/${deleted.id}`)
      .set('Authorization', creator.authorization)
      .expect(200);

    const hooks = [rotated, development, beforeKeyIds, deleted];
    const before = await Promise.all(hooks.map((hook) => storedSecrets(oldServer, hook.id)));
    expect(before[0].secret.startsWith(OLD_PREFIX)).toBe(true);
    expect(before[0].previous?.startsWith(OLD_PREFIX)).toBe(true);
    expect(before[1].secret.startsWith(DEVELOPMENT_PREFIX)).toBe(true);
    expect(before[2].secret).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(before[3].secret.startsWith(OLD_PREFIX)).toBe(true);

    // A server with the new key only cannot sign under the old one yet, and says why.
    const newServer = await server({});
    expect(await pingAndDeliver(newServer, creator, rotated)).toEqual([]);
    const deliveries = await newServer.http
      .get(`/v1/webhooks/${rotated.id}/deliveries`)
      .set('Authorization', creator.authorization)
      .expect(200);
    const [failed] = deliveries.body.data.items as { id: string; lastError: string }[];
    expect(failed.lastError).toMatch(
      /neither WEBHOOK_SECRET_KEY nor in WEBHOOK_SECRET_KEY_PREVIOUS/,
    );

    const first = await rotateCli({
      WEBHOOK_SECRET_KEY: NEW_KEY,
      WEBHOOK_SECRET_KEY_PREVIOUS: OLD_KEY,
    });
    expect(first.code).toBe(0);
    expect(first.json.encryptionKey).toMatchObject({
      keyId: secretKeyIdOf(Buffer.from(NEW_KEY, 'hex')),
      remaining: 0,
    });
    // At least ours (rows another run left under these keys are moved too).
    expect(first.json.encryptionKey.endpoints).toBeGreaterThanOrEqual(4);
    expect(first.json.encryptionKey.secretsReencrypted).toBeGreaterThanOrEqual(5);
    expect(first.json.encryptionKey.fromDevelopmentKey).toBeGreaterThanOrEqual(2);

    const after = await Promise.all(hooks.map((hook) => storedSecrets(oldServer, hook.id)));
    const underNewKey = (stored: string | null) => stored === null || stored.startsWith(NEW_PREFIX);
    expect(after.map((row) => [underNewKey(row.secret), underNewKey(row.previous)])).toEqual(
      hooks.map(() => [true, true]),
    );
    expect(after.map((row) => row.previous === null)).toEqual([false, true, true, true]);
    expect(after.filter((row, index) => row.secret === before[index].secret)).toEqual([]);

    // The server with the new key alone signs with the very secrets creators were given.
    await newServer.http
      .post(`/v1/webhook-deliveries/${failed.id}/retry`)
      .set('Authorization', creator.authorization)
      .expect(200);
    await newServer.app.get(WebhookDeliveryWorker).deliverOnce();
    const retried = receiver.on(rotated.path);
    expect(retried).toHaveLength(1);
    const [, current, previous] = String(retried[0].headers['linkpilot-signature']).split(',');
    const timestamp = String(retried[0].headers['linkpilot-signature']).split(',')[0];
    expect(verifySignature(`${timestamp},${current}`, retried[0].body, rotatedSecrets[0])).toBe(
      true,
    );
    expect(verifySignature(`${timestamp},${previous}`, retried[0].body, rotatedSecrets[1])).toBe(
      true,
    );
    for (const hook of [development, beforeKeyIds]) {
      const [delivered] = await pingAndDeliver(newServer, creator, hook);
      expect(verifySignature(delivered.signature, delivered.body, hook.secret)).toBe(true);
    }

    // Nothing left to do: a second run rewrites nothing.
    const second = await rotateCli({ WEBHOOK_SECRET_KEY: NEW_KEY });
    expect(second.code).toBe(0);
    expect(second.json.encryptionKey).toMatchObject({ secretsReencrypted: 0, remaining: 0 });
  });

  it('should report the endpoints whose secret no configured key opens, and exit 1', async () => {
    const t = await server({});
    const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    const hook = await register(t, creator);
    const dataSource = t.app.get(DataSource);
    const { secret: valid } = await storedSecrets(t, hook.id);
    const lostKey = randomBytes(32);
    await dataSource.query(`UPDATE webhook_endpoints SET secret_ciphertext = $2 WHERE id = $1`, [
      hook.id,
      `${prefixOf(secretKeyIdOf(lostKey))}${encryptAsBefore(hook.secret, lostKey)}`,
    ]);
    try {
      const { code, json } = await rotateCli({ WEBHOOK_SECRET_KEY: NEW_KEY });
      expect(code).toBe(1);
      expect(json.error.code).toBe('ROTATION_INCOMPLETE');
      expect(json.error.message).toMatch(/open with none of the configured keys/);
      expect(json.error.details.unreadableEndpointIds).toContain(hook.id);
      // Its deliveries fail, saying which key is missing, rather than go unsigned.
      expect(await pingAndDeliver(t, creator, hook)).toEqual([]);
    } finally {
      // Other runs' rotations must not meet it.
      await dataSource.query(`UPDATE webhook_endpoints SET secret_ciphertext = $2 WHERE id = $1`, [
        hook.id,
        valid,
      ]);
    }
  });
});
