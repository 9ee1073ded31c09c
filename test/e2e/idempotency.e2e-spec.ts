import { CreatorsService } from '../../src/account/creators.service';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { KvStore } from '../../src/kv/kv-store';
import { requestFingerprint } from '../../src/idempotency/request-fingerprint';
import { buildAmazonUrl } from '../factories/api-link.factory';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { startTestApp, TestApp } from '../support/test-app';

describe('Idempotent creates (e2e)', () => {
  let t: TestApp;
  let creator: TestCreator;
  let testKeyAuthorization: string;
  let nextKey = 0;
  const freshKey = (): string => `retry-${process.pid}-${Date.now()}-${nextKey++}`;

  beforeAll(async () => {
    t = await startTestApp({ PROBES_ENABLED: 'false' });
    creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    const { plan } = await t.app.get(CreatorsService).findWithPlanOrThrow(creator.creatorId);
    const testKey = await t.app.get(ApiKeysService).issue(creator.creatorId, plan, 'test', []);
    testKeyAuthorization = `Bearer ${testKey.apiKey}`;
  });
  afterAll(() => t.close());

  const post = (
    path: string,
    body: object,
    key?: string,
    authorization = creator.authorization,
  ) => {
    const request = t.http.post(path).set('Authorization', authorization);
    if (key !== undefined) request.set('Idempotency-Key', key);
    return request.send(body);
  };
  const linkCount = async (authorization = creator.authorization): Promise<number> =>
    (await t.http.get('/v1/links').set('Authorization', authorization).expect(200)).body.data
      .pagination.total as number;

  it('should answer a retry with the first answer, marked as replayed, and create nothing new', async () => {
    const key = freshKey();
    const body = { originalUrl: buildAmazonUrl(), title: 'Retried' };
    const before = await linkCount();

    const first = await post('/v1/links', body, key);
    const retry = await post('/v1/links', { title: 'Retried', originalUrl: body.originalUrl }, key);

    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await linkCount()).toBe(before + 1);
  });

  it('should replay a bulk create with its 207', async () => {
    const key = freshKey();
    const body = { links: [{ originalUrl: buildAmazonUrl() }, { originalUrl: 'not a url' }] };

    const first = await post('/v1/links/bulk', body, key);
    const retry = await post('/v1/links/bulk', body, key);

    expect([first.status, retry.status]).toEqual([207, 207]);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
  });

  it('should answer 422 IDEMPOTENCY_KEY_REUSED for the same key with another body or route', async () => {
    const key = freshKey();
    await post('/v1/links', { originalUrl: buildAmazonUrl() }, key).expect(201);
    const before = await linkCount();

    const otherBody = await post('/v1/links', { originalUrl: buildAmazonUrl() }, key);
    const otherRoute = await post('/v1/links/bulk', { links: [] }, key);

    expect([otherBody.status, otherBody.body.error.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    expect([otherRoute.status, otherRoute.body.error.code]).toEqual([
      422,
      'IDEMPOTENCY_KEY_REUSED',
    ]);
    expect(await linkCount()).toBe(before);
  });

  it('should answer 409 IDEMPOTENCY_KEY_IN_USE while the first request with the key runs', async () => {
    const key = freshKey();
    const body = { originalUrl: buildAmazonUrl() };
    // The state a request still running leaves (its claim), set directly: a race in a test
    // cannot be made to land reliably.
    await t.app.get(KvStore).setString(
      `idem:${creator.creatorId}:live:${key}`,
      JSON.stringify({
        state: 'running',
        fingerprint: requestFingerprint('POST', '/v1/links', body),
      }),
      60,
    );
    const before = await linkCount();

    const response = await post('/v1/links', body, key);

    expect([response.status, response.body.error.code]).toEqual([409, 'IDEMPOTENCY_KEY_IN_USE']);
    expect(await linkCount()).toBe(before);
  });

  it('should free the key of a refused request, so a corrected retry runs', async () => {
    const key = freshKey();

    const refused = await post('/v1/links', { originalUrl: 'http://insecure.example/' }, key);
    const corrected = await post('/v1/links', { originalUrl: buildAmazonUrl() }, key);

    expect(refused.status).toBe(400);
    expect(corrected.status).toBe(201);
    expect(corrected.headers['idempotent-replayed']).toBeUndefined();
  });

  it('should keep keys apart per environment: the same key with a test key creates a test link', async () => {
    const key = freshKey();
    const body = { originalUrl: buildAmazonUrl() };
    const testBefore = await linkCount(testKeyAuthorization);

    const live = await post('/v1/links', body, key);
    const test = await post('/v1/links', body, key, testKeyAuthorization);

    expect([live.status, test.status]).toEqual([201, 201]);
    expect(test.headers['idempotent-replayed']).toBeUndefined();
    expect(test.body.data.link.environment).toBe('test');
    expect(await linkCount(testKeyAuthorization)).toBe(testBefore + 1);
  });

  it.each([
    ['an empty key', ''],
    ['a key with a space', 'my key'],
    ['a 256-character key', 'k'.repeat(256)],
  ])('should refuse %s with 400 naming the header', async (_name, key) => {
    const response = await post('/v1/links', { originalUrl: buildAmazonUrl() }, key);

    expect(response.status).toBe(400);
    expect(Object.keys(response.body.error.details)).toEqual(['Idempotency-Key']);
  });
});
