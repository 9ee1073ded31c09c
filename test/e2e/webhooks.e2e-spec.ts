import { billingPeriodOf } from '../../src/account/billing-period';
import { CreatorsService } from '../../src/account/creators.service';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { runCli } from '../../src/cli/run-cli';
import { CommissionRateChangesService } from '../../src/links/commission-rate-changes.service';
import { LinkProbeStatesService } from '../../src/links/link-probe-states.service';
import { WebhookDeliveryWorker } from '../../src/webhooks/webhook-delivery.worker';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { pollUntil } from '../support/poll';
import { startTestApp, TestApp } from '../support/test-app';
import { TestClock } from '../support/test-clock';
import { Receiver, verifySignature } from '../support/webhook-receiver';

const BROWSER_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
const AMAZON_URL = 'https://www.amazon.com/Apple-AirPods-Pro-2nd-Generation/dp/B0BDHWDR12';

describe('Webhooks (e2e)', () => {
  let t: TestApp;
  const clock = new TestClock();
  const receiver = new Receiver();
  let nextPath = 1;
  let nextIp = 1;
  const freshPath = (): string => `/hook-${nextPath++}`;
  const freshIp = (): string => `198.18.${Math.floor(nextIp / 250)}.${(nextIp++ % 250) + 1}`;

  beforeAll(async () => {
    await receiver.start();
    t = await startTestApp(
      { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', CLICK_CONSUMER_ENABLED: 'false' },
      { clock },
    );
  });
  afterEach(() => clock.resume());
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const deliver = (app: TestApp = t) => app.app.get(WebhookDeliveryWorker).deliverOnce();
  /** Passes until one finds nothing due: an endpoint gets one delivery per pass, in order. */
  const deliverAll = async (app: TestApp = t) => {
    for (let pass = await deliver(app); pass.attempted + pass.dispatched > 0;) {
      pass = await deliver(app);
    }
  };
  const enterprise = (includedClicks?: number) =>
    createCreatorWithKey(t.app, { plan: 'enterprise', includedClicks });
  const testKeyOf = async (creator: TestCreator): Promise<TestCreator> => {
    const { plan } = await t.app.get(CreatorsService).findWithPlanOrThrow(creator.creatorId);
    const issued = await t.app.get(ApiKeysService).issue(creator.creatorId, plan, 'test', []);
    return { ...creator, apiKey: issued.apiKey, authorization: `Bearer ${issued.apiKey}` };
  };
  const register = async (
    creator: TestCreator,
    path: string,
    events: string[] = ['account.usage_warning'],
  ) => {
    const response = await t.http
      .post('/v1/webhooks')
      .set('Authorization', creator.authorization)
      .send({ url: receiver.url(path), events, description: 'test receiver' });
    expect(response.status).toBe(201);
    return response.body.data.webhook as { id: string; secret: string; environment: string };
  };
  const ping = (creator: TestCreator, id: string) =>
    t.http
      .post(`/v1/webhooks/${id}/test`)
      .set('Authorization', creator.authorization)
      .expect(202)
      .then((response) => response.body.data.eventId as string);
  const deliveries = async (creator: TestCreator, id: string) =>
    (
      await t.http
        .get(`/v1/webhooks/${id}/deliveries`)
        .set('Authorization', creator.authorization)
        .expect(200)
    ).body.data as {
      items: {
        id: string;
        eventId: string;
        eventType: string;
        state: string;
        attempts: number;
        lastStatusCode: number | null;
        lastError: string | null;
        nextAttemptAt: string | null;
      }[];
      pagination: { total: number };
    };

  it('should refuse a Publisher key with 403 ENTERPRISE_TIER_REQUIRED on every route', async () => {
    const publisher = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const id = '01JD7Z3W9S8K4Q2M6N0P1R5T7V';
    const calls = [
      t.http
        .post('/v1/webhooks')
        .send({ url: receiver.url('/x'), events: ['link.health_changed'] }),
      t.http.get('/v1/webhooks'),
      t.http.get(`/v1/webhooks/${id}`),
      t.http.patch(`/v1/webhooks/${id}`).send({ description: 'x' }),
      t.http.delete(`/v1/webhooks/${id}`),
      t.http.post(`/v1/webhooks/${id}/rotate-secret`),
      t.http.post(`/v1/webhooks/${id}/test`),
      t.http.get(`/v1/webhooks/${id}/deliveries`),
      t.http.post(`/v1/webhook-deliveries/${id}/retry`),
    ];
    for (const call of calls) {
      const response = await call.set('Authorization', publisher.authorization);
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('ENTERPRISE_TIER_REQUIRED');
    }
  });

  it('should show the secret once and sign a ping that verifies with it and no other', async () => {
    const creator = await enterprise();
    const path = freshPath();
    const webhook = await register(creator, path);
    expect(webhook.secret).toMatch(/^whsec_/);
    const read = await t.http
      .get(`/v1/webhooks/${webhook.id}`)
      .set('Authorization', creator.authorization)
      .expect(200);
    expect(read.body.data.webhook).not.toHaveProperty('secret');
    expect(JSON.stringify(read.body)).not.toContain(webhook.secret);

    const eventId = await ping(creator, webhook.id);
    await deliver();
    const [received] = receiver.on(path);
    expect(received.headers['linkpilot-event-id']).toBe(eventId);
    expect(received.headers['linkpilot-event-type']).toBe('webhook.ping');
    expect(received.headers['user-agent']).toMatch(/^Linkpilot-Webhooks\/\d/);
    expect(received.headers['content-type']).toBe('application/json');
    const signature = String(received.headers['linkpilot-signature']);
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature(signature, received.body, webhook.secret)).toBe(true);
    expect(verifySignature(signature, received.body, 'whsec_another')).toBe(false);
    expect(verifySignature(signature, `${received.body} `, webhook.secret)).toBe(false);
    expect(JSON.parse(received.body)).toEqual({
      id: eventId,
      type: 'webhook.ping',
      createdAt: expect.any(String),
      environment: 'live',
      data: { webhookId: webhook.id, message: expect.any(String) },
    });
    expect((await deliveries(creator, webhook.id)).items).toEqual([
      expect.objectContaining({ eventId, state: 'delivered', attempts: 1, lastStatusCode: 200 }),
    ]);
  });

  it('should keep a pending retry across a restart: a new server instance delivers it', async () => {
    const creator = await enterprise();
    const path = freshPath();
    const webhook = await register(creator, path);
    receiver.statuses.push(503);
    const eventId = await ping(creator, webhook.id);
    await deliver();
    expect((await deliveries(creator, webhook.id)).items[0]).toMatchObject({
      state: 'pending',
      attempts: 1,
    });

    // Another instance on the same database, as after a restart: nothing lived in memory.
    const restartedClock = new TestClock();
    restartedClock.advance(40_000);
    const restarted = await startTestApp(
      { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', CLICK_CONSUMER_ENABLED: 'false' },
      { clock: restartedClock },
    );
    try {
      await deliverAll(restarted);
    } finally {
      await restarted.close();
    }

    expect(receiver.on(path).map((request) => request.headers['linkpilot-event-id'])).toEqual([
      eventId,
      eventId,
    ]);
    expect((await deliveries(creator, webhook.id)).items[0]).toMatchObject({
      eventId,
      state: 'delivered',
      attempts: 2,
      lastStatusCode: 200,
    });
  });

  it('should retry a 500 with backoff and deliver the same event id again', async () => {
    const creator = await enterprise();
    const path = freshPath();
    const webhook = await register(creator, path);
    receiver.statuses.push(500);
    const eventId = await ping(creator, webhook.id);
    await deliver();
    const afterFirst = (await deliveries(creator, webhook.id)).items[0];
    expect(afterFirst).toMatchObject({
      eventId,
      eventType: 'webhook.ping',
      state: 'pending',
      attempts: 1,
      lastStatusCode: 500,
      lastError: 'HTTP 500',
    });
    // The first retry waits 30 s ± 20%: not before, and once the time has come.
    const waitMs = Date.parse(String(afterFirst.nextAttemptAt)) - clock.nowMs();
    expect(waitMs).toBeGreaterThan(20_000);
    expect(waitMs).toBeLessThanOrEqual(36_000);
    await deliver();
    expect(receiver.on(path)).toHaveLength(1);
    clock.advance(40_000);
    await deliver();
    const received = receiver.on(path);
    expect(received).toHaveLength(2);
    expect(received.map((request) => request.headers['linkpilot-event-id'])).toEqual([
      eventId,
      eventId,
    ]);
    expect(received[0].body).toBe(received[1].body);
    expect((await deliveries(creator, webhook.id)).items).toEqual([
      expect.objectContaining({
        eventId,
        state: 'delivered',
        attempts: 2,
        lastStatusCode: 200,
        lastError: null,
        nextAttemptAt: null,
      }),
    ]);
  });

  it('should attempt a delivery again on retry', async () => {
    const creator = await enterprise();
    const path = freshPath();
    const webhook = await register(creator, path);
    await ping(creator, webhook.id);
    await deliver();
    const [delivery] = (await deliveries(creator, webhook.id)).items;
    const retried = await t.http
      .post(`/v1/webhook-deliveries/${delivery.id}/retry`)
      .set('Authorization', creator.authorization)
      .expect(200);
    expect(retried.body.data.delivery).toMatchObject({ id: delivery.id, state: 'pending' });
    await deliver();
    expect(receiver.on(path)).toHaveLength(2);
    const other = await enterprise();
    const refused = await t.http
      .post(`/v1/webhook-deliveries/${delivery.id}/retry`)
      .set('Authorization', other.authorization);
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe('WEBHOOK_DELIVERY_NOT_FOUND');
  });

  it('should sign with both secrets for a day after a rotation', async () => {
    const creator = await enterprise();
    const path = freshPath();
    const webhook = await register(creator, path);
    const rotated = await t.http
      .post(`/v1/webhooks/${webhook.id}/rotate-secret`)
      .set('Authorization', creator.authorization)
      .expect(200);
    const newSecret = rotated.body.data.webhook.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(webhook.secret);
    expect(rotated.body.data.webhook.previousSecretExpiresAt).toEqual(expect.any(String));

    await ping(creator, webhook.id);
    await deliver();
    const [during] = receiver.on(path);
    const signature = String(during.headers['linkpilot-signature']);
    const [, first, second] = signature.split(',');
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    const timestamp = signature.split(',')[0];
    expect(verifySignature(`${timestamp},${first}`, during.body, newSecret)).toBe(true);
    expect(verifySignature(`${timestamp},${second}`, during.body, webhook.secret)).toBe(true);

    clock.advance(24 * 3_600_000 + 1_000);
    await ping(creator, webhook.id);
    await deliver();
    const after = receiver.on(path)[1];
    const afterSignature = String(after.headers['linkpilot-signature']);
    expect(afterSignature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature(afterSignature, after.body, newSecret)).toBe(true);
    expect(verifySignature(afterSignature, after.body, webhook.secret)).toBe(false);
  });

  it('should warn at 80% and 100% of included clicks exactly once each under concurrent clicks', async () => {
    const creator = await enterprise(10);
    const path = freshPath();
    const webhook = await register(creator, path, ['account.usage_warning']);
    const created = await t.http
      .post('/v1/links')
      .set('Authorization', creator.authorization)
      .send({ originalUrl: AMAZON_URL, visitorCountry: 'US' })
      .expect(201);
    const linkId = created.body.data.link.linkId as string;
    const clicks = await Promise.all(
      Array.from({ length: 25 }, () =>
        t.http
          .get(`/r/${linkId}`)
          .set({ 'User-Agent': BROWSER_UA, 'X-Forwarded-For': freshIp() })
          .redirects(0),
      ),
    );
    expect(clicks.every((response) => response.status === 302)).toBe(true);
    const events = await pollUntil(
      async () => {
        await deliver();
        return receiver.on(path);
      },
      (received) => received.length >= 2,
    );
    await deliver();
    expect(receiver.on(path)).toHaveLength(2);
    const payloads = events.map(
      (request) => JSON.parse(request.body) as { type: string; data: Record<string, unknown> },
    );
    // The agreed fields, then the names of 0.1.0 beside them (deprecated, docs/webhooks.md "Webhooks").
    const period = billingPeriodOf(clock.nowMs());
    expect(period.start).toMatch(/^\d{4}-\d{2}-01$/);
    const dataAt = (threshold: number, clicksUsed: number) => ({
      threshold,
      clicksUsed,
      includedClicks: 10,
      periodStart: period.start,
      periodEnd: period.end,
      plan: 'enterprise',
      thresholdPercent: threshold,
      billingPeriod: period.id,
    });
    expect(payloads.sort((a, b) => Number(a.data.threshold) - Number(b.data.threshold))).toEqual([
      expect.objectContaining({
        type: 'account.usage_warning',
        environment: 'live',
        data: dataAt(80, 8),
      }),
      expect.objectContaining({ type: 'account.usage_warning', data: dataAt(100, 10) }),
    ]);
    expect((await deliveries(creator, webhook.id)).pagination.total).toBe(2);
  });

  it('should report a probe that moves a link status, and only then', async () => {
    const creator = await enterprise();
    const path = freshPath();
    await register(creator, path, ['link.health_changed']);
    const created = await t.http
      .post('/v1/links')
      .set('Authorization', creator.authorization)
      .send({ originalUrl: AMAZON_URL, visitorCountry: 'US' })
      .expect(201);
    const linkId = created.body.data.link.linkId as string;
    const probeStates = t.app.get(LinkProbeStatesService);
    const record = (healthStatus: 'ok' | 'critical', at: number) =>
      probeStates.recordOutcome(linkId, {
        deepLinkStatus: healthStatus === 'ok' ? 'validated' : 'invalid',
        healthStatus,
        checkedAt: new Date(at),
      });
    const now = Date.now();
    await record('ok', now);
    await record('ok', now + 1);
    await record('critical', now + 2);
    await deliverAll();
    const payloads = receiver
      .on(path)
      .map((request) => JSON.parse(request.body) as { type: string; data: unknown });
    expect(payloads).toEqual([
      expect.objectContaining({
        type: 'link.health_changed',
        data: expect.objectContaining({
          linkId,
          healthStatus: { before: 'unknown', after: 'ok' },
          deepLinkStatus: { before: 'unchecked', after: 'validated' },
        }),
      }),
      expect.objectContaining({
        data: expect.objectContaining({
          healthStatus: { before: 'ok', after: 'critical' },
          deepLinkStatus: { before: 'validated', after: 'invalid' },
        }),
      }),
    ]);
  });

  it('should tell creators with links on a merchant that its EPC hint changed', async () => {
    const creator = await enterprise();
    const path = freshPath();
    await register(creator, path, ['commission_rate.changed']);
    for (const plid of ['PLID94090613', 'PLID94090614']) {
      await t.http
        .post('/v1/links')
        .set('Authorization', creator.authorization)
        .send({ originalUrl: `https://www.takealot.com/airpods/${plid}` })
        .expect(201);
    }
    const rates = t.app.get(CommissionRateChangesService);
    // The seeded hint is put back at once: other suites' apps load the knowledge base at boot.
    const first = await rates.setEpcHint('takealot', 'ZA', 'takealot_affiliates', 0.71);
    const before = first.change.before;
    try {
      expect(first.linksAffected).toBeGreaterThanOrEqual(2);
    } finally {
      await rates.setEpcHint('takealot', 'ZA', 'takealot_affiliates', before);
    }
    await deliverAll();
    const payloads = receiver
      .on(path)
      .map((request) => JSON.parse(request.body) as { type: string; data: unknown });
    expect(payloads).toEqual([
      expect.objectContaining({
        type: 'commission_rate.changed',
        environment: 'live',
        data: {
          merchantId: 'takealot',
          region: 'ZA',
          networkId: 'takealot_affiliates',
          currency: 'ZAR',
          epcHint: { before, after: 0.71 },
          linksAffected: 2,
        },
      }),
      expect.objectContaining({
        data: expect.objectContaining({ epcHint: { before: 0.71, after: before } }),
      }),
    ]);
  });

  it('should set an EPC hint from the CLI and refuse an unknown region', async () => {
    const cli = async (...args: string[]) => {
      let stdout = '';
      const code = await runCli(
        [...args, '--json'],
        { ...process.env, LOG_LEVEL: 'fatal' },
        { out: (text) => (stdout += text), err: () => undefined },
      );
      return { code, json: JSON.parse(stdout.trim()) as Record<string, any> };
    };
    const seeded = t.app.get(CommissionRateChangesService);
    const { change } = await seeded.setEpcHint('takealot', 'ZA', 'takealot_affiliates', 0.65);
    // The same value again: stored, nobody told.
    const same = await cli(
      'merchants',
      'set-epc',
      'takealot',
      '--region',
      'ZA',
      '--network',
      'takealot_affiliates',
      '--epc',
      String(change.after),
    );
    expect(same.code).toBe(0);
    expect(same.json.commissionRate).toMatchObject({
      change: { merchantId: 'takealot', before: change.after, after: change.after },
      creatorsNotified: 0,
    });
    const refused = await cli(
      'merchants',
      'set-epc',
      'takealot',
      '--region',
      'XX',
      '--network',
      'takealot_affiliates',
      '--epc',
      '1',
    );
    expect(refused.code).toBe(1);
    expect(refused.json.error.code).toBe('VALIDATION_ERROR');
  });

  it('should admit the browser origins declared on endpoints in CORS while they exist', async () => {
    const creator = await enterprise();
    const origin = `https://dash-${nextPath}.example.org`;
    const preflight = () =>
      t.http
        .options('/v1/links')
        .set({ Origin: origin, 'Access-Control-Request-Method': 'POST' })
        .then((response) => response.headers['access-control-allow-origin'] as string | undefined);
    expect(await preflight()).toBeUndefined();
    const created = await t.http
      .post('/v1/webhooks')
      .set('Authorization', creator.authorization)
      .send({
        url: receiver.url(freshPath()),
        events: ['link.health_changed'],
        allowedOrigins: [origin.toUpperCase().replace('HTTPS', 'https')],
      })
      .expect(201);
    expect(created.body.data.webhook.allowedOrigins).toEqual([origin]);
    expect(await preflight()).toBe(origin);
    const list = await t.http
      .get('/v1/webhooks')
      .set({ Authorization: creator.authorization, Origin: origin })
      .expect(200);
    expect(list.headers['access-control-allow-origin']).toBe(origin);
    await t.http
      .delete(`/v1/webhooks/${created.body.data.webhook.id as string}`)
      .set('Authorization', creator.authorization)
      .expect(200);
    expect(await preflight()).toBeUndefined();
  });

  it("should admit a declared origin on the actual request only for its own creator's keys", async () => {
    const owner = await enterprise();
    const ownerTestKey = await testKeyOf(owner);
    const origin = `https://dash-${nextPath++}.example.org`;
    await t.http
      .post('/v1/webhooks')
      .set('Authorization', owner.authorization)
      .send({
        url: receiver.url(freshPath()),
        events: ['link.health_changed'],
        allowedOrigins: [origin],
      })
      .expect(201);
    const allowedOriginOf = async (
      call: ReturnType<typeof t.http.get>,
      status: number,
    ): Promise<string | undefined> => {
      const response = await call.set('Origin', origin);
      expect(response.status).toBe(status);
      expect(response.headers.vary).toMatch(/Origin/);
      return response.headers['access-control-allow-origin'];
    };
    const as = (caller: TestCreator, url: string) =>
      t.http.get(url).set('Authorization', caller.authorization);

    // The creator who declared it: answers and errors alike, live and test keys.
    expect(await allowedOriginOf(as(owner, '/v1/account'), 200)).toBe(origin);
    expect(await allowedOriginOf(as(owner, '/v1/links/01JD7Z3W9S8K4Q2M6N0P1R5T7V'), 404)).toBe(
      origin,
    );
    expect(await allowedOriginOf(as(ownerTestKey, '/v1/account'), 200)).toBe(origin);
    // Every other caller is still served, but its answer is not readable from that origin.
    const otherEnterprise = await enterprise();
    const publisher = await createCreatorWithKey(t.app, { plan: 'publisher' });
    expect(await allowedOriginOf(as(otherEnterprise, '/v1/account'), 200)).toBeUndefined();
    expect(await allowedOriginOf(as(otherEnterprise, '/v1/webhooks'), 200)).toBeUndefined();
    expect(await allowedOriginOf(as(publisher, '/v1/links'), 200)).toBeUndefined();
    expect(await allowedOriginOf(t.http.get('/v1/account'), 401)).toBeUndefined();
    // A preflight carries no key: it admits every declared origin, as before.
    const preflight = await t.http
      .options('/v1/account')
      .set({ Origin: origin, 'Access-Control-Request-Method': 'GET' })
      .expect(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(origin);
  });

  it('should keep test and live endpoints apart', async () => {
    const live = await enterprise();
    const test = await testKeyOf(live);
    const liveHook = await register(live, freshPath(), ['link.health_changed']);
    const testHook = await register(test, freshPath(), ['link.health_changed']);
    expect(testHook.environment).toBe('test');

    const list = async (caller: TestCreator) =>
      (
        await t.http.get('/v1/webhooks').set('Authorization', caller.authorization).expect(200)
      ).body.data.items.map((item: { id: string }) => item.id) as string[];
    expect(await list(live)).toEqual([liveHook.id]);
    expect(await list(test)).toEqual([testHook.id]);
    for (const [caller, otherId] of [
      [test, liveHook.id],
      [live, testHook.id],
    ] as const) {
      const read = await t.http
        .get(`/v1/webhooks/${otherId}`)
        .set('Authorization', caller.authorization);
      expect(read.status).toBe(404);
      expect(read.body.error.code).toBe('WEBHOOK_NOT_FOUND');
      const removed = await t.http
        .delete(`/v1/webhooks/${otherId}`)
        .set('Authorization', caller.authorization);
      expect(removed.status).toBe(404);
    }
  });

  it('should validate the body and cap endpoints at 10 per environment', async () => {
    const creator = await enterprise();
    for (const body of [
      { url: receiver.url('/v'), events: [] },
      { url: receiver.url('/v'), events: ['link.clicked'] },
      { url: receiver.url('/v') },
      { url: 'not a url', events: ['link.health_changed'] },
      { url: 'ftp://127.0.0.1/x', events: ['link.health_changed'] },
    ]) {
      const response = await t.http
        .post('/v1/webhooks')
        .set('Authorization', creator.authorization)
        .send(body);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
    }
    for (let index = 0; index < 10; index++) await register(creator, freshPath());
    const eleventh = await t.http
      .post('/v1/webhooks')
      .set('Authorization', creator.authorization)
      .send({ url: receiver.url('/eleventh'), events: ['link.health_changed'] });
    expect(eleventh.status).toBe(403);
    expect(eleventh.body.error.code).toBe('WEBHOOK_LIMIT_REACHED');
  });
});

describe('Webhooks without private targets (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it.each(['https://127.0.0.1/hook', 'https://10.0.0.8/hook', 'http://127.0.0.1:4000/hook'])(
    'should refuse %s',
    async (url) => {
      const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
      const response = await t.http
        .post('/v1/webhooks')
        .set('Authorization', creator.authorization)
        .send({ url, events: ['account.usage_warning'] });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.details.url).toEqual([expect.any(String)]);
    },
  );
});
