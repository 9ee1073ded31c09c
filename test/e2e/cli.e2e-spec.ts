import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { KNOWLEDGE_BASE_DIR } from '../../seeds/merchants.seed';
import { runCli } from '../../src/cli/run-cli';
import { startTestApp, TestApp } from '../support/test-app';

/** Runs one CLI command in-process against the run's database; returns exit code and JSON. */
async function cli(
  ...args: string[]
): Promise<{ code: number; json: Record<string, any>; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    [...args, '--json'],
    { ...process.env, LOG_LEVEL: 'fatal' },
    {
      out: (text) => (stdout += text),
      err: (text) => (stderr += text),
    },
  );
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1); // exactly one JSON object
  return { code, json: JSON.parse(lines[0]) as Record<string, any>, stderr };
}

describe('Admin CLI (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const account = (apiKey: string) =>
    t.http.get('/v1/account').set('Authorization', `Bearer ${apiKey}`);

  it('should create a creator with a key and demo accounts on all 12 networks', async () => {
    const { code, json } = await cli(
      'creators',
      'create',
      '--plan',
      'publisher',
      '--with-key',
      '--email',
      `Pub-${Date.now()}@Example.com`,
    );
    expect(code).toBe(0);
    expect(json.creator).toMatchObject({
      plan: 'publisher',
      includedClicks: 250000,
      email: expect.stringMatching(/^pub-\d+@example\.com$/),
    });
    expect(json.networkAccounts).toHaveLength(12);
    expect(json.apiKey.apiKey).toMatch(/^lp_live_sk_[0-9a-f]{40}$/);
    const response = await account(json.apiKey.apiKey).expect(200);
    expect(response.body.data).toMatchObject({
      creatorId: json.creator.creatorId,
      plan: 'publisher',
      clicksIncludedThisPeriod: 250000,
    });
  });

  it('should create a creator without network accounts when told', async () => {
    const { json } = await cli('creators', 'create', '--plan', 'free', '--no-network-accounts');
    expect(json.networkAccounts).toEqual([]);
    expect(json.apiKey).toBeUndefined();
  });

  it('should apply a plan change and an included-clicks change to the very next request', async () => {
    const created = await cli('creators', 'create', '--plan', 'publisher', '--with-key');
    const { creatorId } = created.json.creator;
    const apiKey = created.json.apiKey.apiKey as string;

    const raised = await cli('creators', 'update', creatorId, '--included-clicks', '1234');
    expect(raised.json.creator.includedClicks).toBe(1234);
    expect((await account(apiKey).expect(200)).body.data.clicksIncludedThisPeriod).toBe(1234);

    const upgraded = await cli(
      'creators',
      'update',
      creatorId,
      '--plan',
      'enterprise',
      '--plan-included-clicks',
    );
    expect(upgraded.json.creator).toMatchObject({ plan: 'enterprise', includedClicks: 2000000 });
    expect((await account(apiKey).expect(200)).headers['x-ratelimit-limit']).toBe('600');

    await cli('creators', 'update', creatorId, '--plan', 'pro');
    expect((await account(apiKey).expect(403)).body.error.code).toBe('PUBLISHER_TIER_REQUIRED');

    const learned = await cli('creators', 'update', creatorId, '--routing-mode', 'learned');
    expect(learned.json.creator).toMatchObject({ plan: 'pro', routingMode: 'learned' });
  });

  it('should issue and revoke keys, the revocation taking effect at once', async () => {
    const created = await cli('creators', 'create', '--plan', 'enterprise');
    const { creatorId } = created.json.creator;
    const issued = await cli(
      'keys',
      'create',
      '--creator',
      creatorId,
      '--env',
      'test',
      '--allow-ip',
      '127.0.0.1',
      '--allow-ip',
      '::1',
    );
    expect(issued.code).toBe(0);
    expect(issued.json.apiKey).toMatchObject({
      environment: 'test',
      ipAllowlist: ['127.0.0.1', '::1'],
    });
    await account(issued.json.apiKey.apiKey).expect(200);

    const revoked = await cli('keys', 'revoke', issued.json.apiKey.keyId);
    expect(revoked).toMatchObject({
      code: 0,
      json: { keyId: issued.json.apiKey.keyId, revokedAt: expect.any(String) },
    });
    expect((await account(issued.json.apiKey.apiKey).expect(401)).body.error.code).toBe(
      'UNAUTHORIZED',
    );
  });

  it('should set, list and remove network accounts', async () => {
    const created = await cli('creators', 'create', '--plan', 'publisher', '--no-network-accounts');
    const { creatorId } = created.json.creator;
    const set = await cli(
      'network-accounts',
      'set',
      '--creator',
      creatorId,
      '--network',
      'awin',
      '--affiliate-id',
      'pub-123',
    );
    expect(set.json).toEqual({
      creatorId,
      networkAccount: { networkId: 'awin', affiliateId: 'pub-123', isActive: true },
    });
    await cli(
      'network-accounts',
      'set',
      '--creator',
      creatorId,
      '--network',
      'awin',
      '--affiliate-id',
      'pub-456',
    );
    const listed = await cli('network-accounts', 'list', '--creator', creatorId);
    expect(listed.json.networkAccounts).toEqual([
      { networkId: 'awin', affiliateId: 'pub-456', isActive: true },
    ]);
    const removed = await cli(
      'network-accounts',
      'remove',
      '--creator',
      creatorId,
      '--network',
      'awin',
    );
    expect(removed.json).toEqual({ creatorId, networkId: 'awin', removed: true });
  });

  it('should validate the merchant knowledge base', async () => {
    expect(await cli('kb', 'check')).toMatchObject({
      code: 0,
      json: { valid: true, merchants: 35 },
    });
  });

  it('should refuse a knowledge base with a bad profile, naming the file, field and rule', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpilot-kb-'));
    fs.cpSync(KNOWLEDGE_BASE_DIR, dir, { recursive: true });
    const file = path.join(dir, 'asos.json');
    const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
    profile.meta.dataConfidenceScore = 55;
    fs.writeFileSync(file, JSON.stringify(profile));
    const { code, json } = await cli('kb', 'check', '--dir', dir);
    expect(code).toBe(1);
    expect(json.error.code).toBe('KNOWLEDGE_BASE_INVALID');
    expect(json.error.message).toMatch(/asos\.json meta\.dataConfidenceScore \[[a-z-]+\]/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('should migrate and seed idempotently', async () => {
    expect(await cli('db', 'migrate')).toMatchObject({ code: 0, json: { applied: [] } });
    expect(await cli('db', 'seed')).toMatchObject({
      code: 0,
      // Plans and merchants already as bundled are not rewritten: the counts are of rows written.
      json: { seeded: { plans: expect.any(Number), merchants: expect.any(Number) } },
    });
  });

  const refusals: [string, string[], number, string][] = [
    ['an unknown plan', ['creators', 'create', '--plan', 'gold'], 2, 'INVALID_ARGUMENTS'],
    ['a missing plan', ['creators', 'create'], 2, 'INVALID_ARGUMENTS'],
    [
      'a negative click count',
      ['creators', 'create', '--plan', 'pro', '--included-clicks', '-5'],
      2,
      'INVALID_ARGUMENTS',
    ],
    [
      'a bad email',
      ['creators', 'create', '--plan', 'pro', '--email', 'nope'],
      2,
      'INVALID_ARGUMENTS',
    ],
    [
      'a bad IP',
      ['keys', 'create', '--creator', 'x', '--allow-ip', '10.0.0.300'],
      2,
      'INVALID_ARGUMENTS',
    ],
    [
      'a bad environment',
      ['keys', 'create', '--creator', 'x', '--env', 'prod'],
      2,
      'INVALID_ARGUMENTS',
    ],
    ['an update with nothing to change', ['creators', 'update', 'x'], 2, 'INVALID_ARGUMENTS'],
    [
      'an unknown routing mode',
      ['creators', 'update', 'x', '--routing-mode', 'smart'],
      2,
      'INVALID_ARGUMENTS',
    ],
    ['an unknown command', ['creators', 'destroy'], 2, 'INVALID_ARGUMENTS'],
    [
      'an unknown creator',
      ['creators', 'update', '01NOSUCHCREATOR0000000000', '--plan', 'pro'],
      1,
      'CREATOR_NOT_FOUND',
    ],
    [
      'a key for an unknown creator',
      ['keys', 'create', '--creator', 'nobody'],
      1,
      'CREATOR_NOT_FOUND',
    ],
    [
      'a test key for a Publisher',
      ['creators', 'create', '--plan', 'publisher', '--with-key', '--env', 'test'],
      1,
      'ENTERPRISE_TIER_REQUIRED',
    ],
    [
      'an allowlist for a Publisher',
      ['creators', 'create', '--plan', 'publisher', '--with-key', '--allow-ip', '10.0.0.0/8'],
      1,
      'ENTERPRISE_TIER_REQUIRED',
    ],
    ['revoking an unknown key', ['keys', 'revoke', 'nokey'], 1, 'VALIDATION_ERROR'],
    [
      'an unknown network',
      ['network-accounts', 'set', '--creator', 'x', '--network', 'nope', '--affiliate-id', 'a'],
      1,
      'CREATOR_NOT_FOUND',
    ],
  ];

  it.each(refusals)(
    'should refuse %s with a clear JSON error',
    async (_name, args, exitCode, errorCode) => {
      const { code, json } = await cli(...args);
      expect(code).toBe(exitCode);
      expect(json.error).toMatchObject({ code: errorCode, message: expect.any(String) });
      expect(json.error.message.length).toBeGreaterThan(10);
    },
  );

  it('should refuse an unknown network for a real creator', async () => {
    const created = await cli('creators', 'create', '--plan', 'publisher', '--no-network-accounts');
    const { code, json } = await cli(
      'network-accounts',
      'set',
      '--creator',
      created.json.creator.creatorId,
      '--network',
      'nope',
      '--affiliate-id',
      'a',
    );
    expect(code).toBe(1);
    expect(json.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { networkId: [expect.stringContaining('awin')] },
    });
  });

  it('should not leave a creator behind when the key it asked for is refused', async () => {
    const email = `refused-${Date.now()}@example.com`;
    await cli(
      'creators',
      'create',
      '--plan',
      'publisher',
      '--with-key',
      '--env',
      'test',
      '--email',
      email,
    );
    const again = await cli('creators', 'create', '--plan', 'enterprise', '--email', email);
    expect(again.code).toBe(0);
  });
});
