import type { INestApplication } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { DeepLinkStatus, HealthStatus, LinkEntity } from '../../src/links/link.entity';
import { LinkProbeStatesService } from '../../src/links/link-probe-states.service';
import { ProbesService } from '../../src/probes/probes.service';
import { createCreatorWithKey } from '../factories/creator.factory';
import { createLink } from '../factories/link.factory';
import { pollUntil } from '../support/poll';
import { ProbeTargetServer, ReplyGate, ScenarioHandler } from '../support/probe-target-server';
import { startTestApp, TestApp } from '../support/test-app';
import { TestClock } from '../support/test-clock';

const MERCHANT = 'https://www.example-merchant.test';
const HOUR_MS = 3_600_000;

/** Tests drive the sweep themselves; the 10-minute cron must not sweep with a moved clock. */
async function stopExpiryJob(app: INestApplication): Promise<void> {
  await app.get(SchedulerRegistry).getCronJob('probe-expiry').stop();
}

function readLink(app: INestApplication, id: string): Promise<LinkEntity> {
  return app.get(DataSource).getRepository(LinkEntity).findOneByOrFail({ id });
}

function waitForProbe(app: INestApplication, id: string, after: Date | null = null) {
  return pollUntil(
    () => readLink(app, id),
    (link) =>
      link.deepLinkStatus !== 'unchecked' &&
      link.deepLinkStatus !== 'ttl_expired' &&
      link.healthStatus !== 'unknown' &&
      (after === null || (link.deepLinkCheckedAt?.getTime() ?? 0) > after.getTime()),
  );
}

const reply =
  (status: number, headers: Record<string, string> = {}): ScenarioHandler =>
  (_request, response) => {
    response.writeHead(status, headers).end();
  };

/** `/hop/0` -> `/hop/1` -> ... -> `/hop/<depth>` (200), each keeping the query. */
const redirectChain =
  (depth: number): ((prefix: string) => ScenarioHandler) =>
  (prefix) =>
  (_request, response, rest) => {
    const hop = Number(/^\/hop\/(\d+)/.exec(rest)?.[1] ?? -1);
    if (hop < 0 || hop > depth) return void response.writeHead(404).end();
    if (hop === depth) return void response.writeHead(200).end();
    response
      .writeHead(302, { location: `${MERCHANT}${prefix}/hop/${hop + 1}?utm_source=linkpilot` })
      .end();
  };

describe('Link probes (e2e)', () => {
  const clock = new TestClock();
  let target: ProbeTargetServer;
  let t: TestApp;

  beforeAll(async () => {
    target = await ProbeTargetServer.start();
    t = await startTestApp(
      {
        PROBES_ENABLED: 'true',
        PROBE_ALLOW_PRIVATE_TARGETS: 'true',
        PROBE_TARGET_OVERRIDE: target.origin,
      },
      { clock },
    );
    await stopExpiryJob(t.app);
  });
  afterAll(async () => {
    await t?.close();
    await target?.close();
  });

  /** A new creator's link to `<merchant><prefix><path>?utm_source=linkpilot`, probed. */
  async function probeNewLink(prefix: string, path: string) {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const link = await createLink(t.app, {
      creatorId: creator.creatorId,
      routedUrl: `${MERCHANT}${prefix}${path}?utm_source=linkpilot`,
    });
    t.app.get(ProbesService).enqueue({ linkId: link.id, url: link.routedUrl });
    return { creator, link, settled: await waitForProbe(t.app, link.id) };
  }

  describe('the probe results', () => {
    it.each<[string, DeepLinkStatus, HealthStatus, string, (prefix: string) => ScenarioHandler]>([
      ['a fast 200', 'validated', 'ok', '/product', () => reply(200)],
      ['a 404', 'invalid', 'critical', '/gone', () => reply(404)],
      ['a 410', 'invalid', 'critical', '/gone', () => reply(410)],
      ['a 503', 'invalid', 'warning', '/busy', () => reply(503)],
      [
        'a reply slower than 3 s',
        'invalid',
        'critical',
        '/slow',
        () => (_request, response) => target.later(3500, () => response.writeHead(200).end()),
      ],
      ['a chain of 1 redirect', 'validated', 'ok', '/hop/0', redirectChain(1)],
      ['a chain of 3 redirects', 'validated', 'warning', '/hop/0', redirectChain(3)],
      ['a chain of 5 redirects', 'validated', 'critical', '/hop/0', redirectChain(5)],
      [
        'a redirect loop',
        'validated',
        'critical',
        '/a',
        (prefix) => (_request, response, rest) => {
          const next = rest.startsWith('/a') ? `${prefix}/b` : `${prefix}/a?utm_source=linkpilot`;
          response.writeHead(301, { location: next }).end();
        },
      ],
      [
        'one redirect that drops utm_source',
        'validated',
        'warning',
        '/start',
        (prefix) => (_request, response, rest) => {
          if (rest.startsWith('/start')) {
            response.writeHead(302, { location: `${prefix}/landing` }).end();
          } else {
            response.writeHead(200).end();
          }
        },
      ],
      [
        'a 405 to HEAD and a 200 to GET',
        'invalid',
        'ok',
        '/no-head',
        () => (request, response) =>
          response.writeHead(request.method === 'HEAD' ? 405 : 200).end(),
      ],
    ])(
      'should record %s as %s / %s',
      async (_name, deepLinkStatus, healthStatus, path, scenario) => {
        const prefix = target.addScenario((request, response, rest) =>
          scenario(prefix)(request, response, rest),
        );
        const { link, settled } = await probeNewLink(prefix, path);

        expect(settled).toMatchObject({ deepLinkStatus, healthStatus });
        expect(settled.deepLinkCheckedAt).toBeInstanceOf(Date);
        expect(settled.lastHealthCheckAt).toEqual(settled.deepLinkCheckedAt);
        // Only the probe columns moved.
        expect(settled.updatedAt).toEqual(link.updatedAt);
        expect(settled.routedUrl).toBe(link.routedUrl);
      },
    );

    it('should send the probes to the link host and path through the override, by hand', async () => {
      const prefix = target.addScenario((_request, response, rest) => {
        redirectChain(3)(prefix)(_request, response, rest);
      });
      await probeNewLink(prefix, '/hop/0');

      const requests = target.requestsTo(prefix);
      expect(requests.every((request) => request.host === 'www.example-merchant.test')).toBe(true);
      // The deep-link HEAD (redirect not followed) and the health walk's 4 HEADs.
      expect(
        requests.filter((request) => request.path.startsWith(`${prefix}/hop/0?`)),
      ).toHaveLength(2);
      expect(requests.map((request) => `${request.method} ${request.path}`).sort()).toEqual(
        [
          `HEAD ${prefix}/hop/0?utm_source=linkpilot`,
          `HEAD ${prefix}/hop/0?utm_source=linkpilot`,
          `HEAD ${prefix}/hop/1?utm_source=linkpilot`,
          `HEAD ${prefix}/hop/2?utm_source=linkpilot`,
          `HEAD ${prefix}/hop/3?utm_source=linkpilot`,
        ].sort(),
      );
    });

    it('should not write on a soft-deleted link', async () => {
      const prefix = target.addScenario(reply(200));
      const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
      const link = await createLink(t.app, {
        creatorId: creator.creatorId,
        routedUrl: `${MERCHANT}${prefix}/deleted?utm_source=linkpilot`,
        deletedAt: new Date(clock.nowMs()),
      });
      const record = jest.spyOn(t.app.get(LinkProbeStatesService), 'recordOutcome');
      try {
        t.app.get(ProbesService).enqueue({ linkId: link.id, url: link.routedUrl });
        const call = await pollUntil(
          () => Promise.resolve(record.mock.calls.findIndex(([id]) => id === link.id)),
          (index) => index >= 0,
        );

        await expect(record.mock.results[call].value).resolves.toBe(false);
        expect(await readLink(t.app, link.id)).toMatchObject({
          deepLinkStatus: 'unchecked',
          healthStatus: 'unknown',
          deepLinkCheckedAt: null,
          lastHealthCheckAt: null,
        });
      } finally {
        record.mockRestore();
      }
    });

    it('should never throw from enqueue, even for a URL it cannot probe', async () => {
      const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
      const link = await createLink(t.app, {
        creatorId: creator.creatorId,
        routedUrl: 'ftp://www.example-merchant.test/file',
      });

      expect(() =>
        t.app.get(ProbesService).enqueue({ linkId: link.id, url: link.routedUrl }),
      ).not.toThrow();
      expect(await waitForProbe(t.app, link.id)).toMatchObject({
        deepLinkStatus: 'invalid',
        healthStatus: 'critical',
      });
    });
  });

  describe('the TTL sweep', () => {
    /** A link answered through a gate, probed once; the gate then holds its re-probe. */
    async function probedGatedLink(status: number) {
      const gate = new ReplyGate();
      const prefix = target.addScenario((_request, response) =>
        gate.whenOpen(() => response.writeHead(status).end()),
      );
      const { creator, settled } = await probeNewLink(prefix, '/ttl');
      return { gate, prefix, creatorId: creator.creatorId, settled };
    }

    /** Moves the test clock so that now is `checkedAt + offsetMs` (never backwards). */
    function moveClockTo(checkedAt: Date, offsetMs: number): void {
      clock.advance(Math.max(0, checkedAt.getTime() + offsetMs - clock.nowMs()));
    }

    it.each<[DeepLinkStatus, HealthStatus, number, number]>([
      ['validated', 'ok', 200, 72 * HOUR_MS],
      ['invalid', 'critical', 404, 24 * HOUR_MS],
    ])(
      'should expire a link whose result is %s only after its TTL, and probe it again',
      async (status, health, replyStatus, ttlMs) => {
        const { gate, prefix, creatorId, settled } = await probedGatedLink(replyStatus);
        expect(settled).toMatchObject({ deepLinkStatus: status, healthStatus: health });
        const checkedAt = settled.deepLinkCheckedAt as Date;
        const probes = t.app.get(ProbesService);

        // A second before the TTL runs out: kept (the exact millisecond is a unit test).
        moveClockTo(checkedAt, ttlMs - 1000);
        expect(await probes.expireAndRequeue({ creatorId })).toEqual({
          expiredLinkIds: [],
          retriedLinkIds: [],
        });
        expect((await readLink(t.app, settled.id)).deepLinkStatus).toBe(status);

        // TTL + 1 ms: expired, and the re-probe is held at the gate so the state shows.
        gate.close();
        moveClockTo(checkedAt, ttlMs + 1);
        const requestsBefore = target.requestsTo(prefix).length;
        expect(await probes.expireAndRequeue({ creatorId })).toEqual({
          expiredLinkIds: [settled.id],
          retriedLinkIds: [],
        });
        expect(await readLink(t.app, settled.id)).toMatchObject({
          deepLinkStatus: 'ttl_expired',
          healthStatus: health,
          deepLinkCheckedAt: checkedAt,
        });

        gate.open();
        const reprobed = await waitForProbe(t.app, settled.id, checkedAt);
        expect(reprobed).toMatchObject({ deepLinkStatus: status, healthStatus: health });
        expect(reprobed.deepLinkCheckedAt!.getTime()).toBeGreaterThan(checkedAt.getTime() + ttlMs);
        expect(target.requestsTo(prefix).length).toBeGreaterThan(requestsBefore);
        // Fresh again: the next sweep leaves it alone.
        expect((await probes.expireAndRequeue({ creatorId })).expiredLinkIds).toEqual([]);
      },
    );

    it('should retry a link whose first probe never ran', async () => {
      const prefix = target.addScenario(reply(200));
      const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
      const link = await createLink(t.app, {
        creatorId: creator.creatorId,
        routedUrl: `${MERCHANT}${prefix}/lost?utm_source=linkpilot`,
        // As of the test clock, which earlier tests may have moved on.
        createdAt: new Date(clock.nowMs()),
      });
      const probes = t.app.get(ProbesService);

      expect(await probes.expireAndRequeue({ creatorId: creator.creatorId })).toEqual({
        expiredLinkIds: [],
        retriedLinkIds: [],
      });
      clock.advance(10 * 60 * 1000 + 1000);
      expect(await probes.expireAndRequeue({ creatorId: creator.creatorId })).toEqual({
        expiredLinkIds: [],
        retriedLinkIds: [link.id],
      });
      expect(await waitForProbe(t.app, link.id)).toMatchObject({
        deepLinkStatus: 'validated',
        healthStatus: 'ok',
      });
    });
  });

  describe.each<[string, (server: ProbeTargetServer) => Record<string, string>, string[]]>([
    [
      'through the override',
      (server) => ({ PROBE_TARGET_OVERRIDE: server.origin }),
      [`${MERCHANT}/p/1?utm_source=linkpilot`],
    ],
    [
      'by its own address',
      () => ({ PROBE_TARGET_OVERRIDE: '' }),
      ['http://127.0.0.1:{port}/p/1?utm_source=linkpilot', 'http://localhost:{port}/p/1'],
    ],
  ])('with private targets refused, a link reaching loopback %s', (_name, env, urls) => {
    let guarded: TestApp;
    let server: ProbeTargetServer;

    beforeAll(async () => {
      server = await ProbeTargetServer.start();
      guarded = await startTestApp({
        PROBES_ENABLED: 'true',
        PROBE_ALLOW_PRIVATE_TARGETS: 'false',
        ...env(server),
      });
      await stopExpiryJob(guarded.app);
    });
    afterAll(async () => {
      await guarded?.close();
      await server?.close();
    });

    it.each(urls.map((url) => [url]))(
      'should end invalid / critical with no request sent (%s)',
      async (template) => {
        const creator = await createCreatorWithKey(guarded.app, { plan: 'publisher' });
        const routedUrl = template.replace('{port}', String(server.port));
        const link = await createLink(guarded.app, { creatorId: creator.creatorId, routedUrl });
        guarded.app.get(ProbesService).enqueue({ linkId: link.id, url: link.routedUrl });

        expect(await waitForProbe(guarded.app, link.id)).toMatchObject({
          deepLinkStatus: 'invalid',
          healthStatus: 'critical',
        });
        expect(server.allRequests()).toEqual([]);
      },
    );
  });

  describe('after POST /v1/links', () => {
    it('should probe the original URL of a passthrough link, which is where visitors go', async () => {
      const prefix = target.addScenario((_request, response) => {
        response.writeHead(200).end();
      });
      const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
      const originalUrl = `https://www.amazon.com${prefix}/Some-Thing/dp/B0BDHWDR12?ref=x`;
      await t.http
        .post('/v1/links')
        .set('Authorization', creator.authorization)
        .send({ originalUrl, passthrough: true, passthroughReason: 'brand deal' })
        .expect(201);
      const requests = await pollUntil(
        () => Promise.resolve(target.requestsTo(prefix)),
        (received) => received.length >= 2,
      );
      for (const request of requests) {
        expect(request.path).toBe(`${prefix}/Some-Thing/dp/B0BDHWDR12?ref=x`);
      }
    });
  });
});
