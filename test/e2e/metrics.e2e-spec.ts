import request from 'supertest';
import { MetricsServer } from '../../src/metrics/metrics-server';
import { createLinkViaApi } from '../factories/api-link.factory';
import { createCreatorWithKey } from '../factories/creator.factory';
import { createApiClient } from '../support/api-client';
import { sampleValue } from '../support/metrics-text';
import { pollUntil } from '../support/poll';
import { startTestApp, TestApp } from '../support/test-app';

describe('GET /metrics on METRICS_PORT (e2e)', () => {
  let t: TestApp;
  let metricsUrl: string;

  beforeAll(async () => {
    t = await startTestApp({
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
      // Probes of every link go to a closed loopback port: they fail at once, and are counted.
      PROBES_ENABLED: 'true',
      PROBE_ALLOW_PRIVATE_TARGETS: 'true',
      PROBE_TARGET_OVERRIDE: 'http://127.0.0.1:9',
    });
    metricsUrl = `http://127.0.0.1:${t.app.get(MetricsServer).port()}`;
  });
  afterAll(() => t.close());

  const scrape = async (): Promise<string> => {
    const response = await request(metricsUrl).get('/metrics').expect(200);
    expect(response.headers['content-type']).toContain('text/plain');
    return response.text;
  };

  it('should be served on its own port only, not by the API listener', async () => {
    await t.http.get('/metrics').expect(404);
    await request(metricsUrl).get('/v1/health').expect(404);
  });

  it('should count real redirects, API requests, rate-limit refusals and probes', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const { linkId } = await createLinkViaApi(createApiClient(t, creator));
    await t.http.get(`/r/${linkId}`).expect(302);
    await t.http.get(`/r/${linkId}`).expect(302);
    await t.http.get('/r/NOSUCHLINK').expect(404);
    // The Publisher limit is 60 API requests a minute: the 61st is refused.
    for (let index = 0; index < 59; index++) {
      await t.http.get('/v1/account').set('Authorization', creator.authorization).expect(200);
    }
    await t.http.get('/v1/account').set('Authorization', creator.authorization).expect(429);

    const text = await pollUntil(scrape, (body) =>
      /^linkpilot_probe_results_total\{probe="health",status="\w+"\} 1$/m.test(body),
    );
    expect(sampleValue(text, 'linkpilot_redirects_total{outcome="redirect",status="302"}')).toBe(2);
    expect(sampleValue(text, 'linkpilot_redirects_total{outcome="not_found",status="404"}')).toBe(
      1,
    );
    expect(
      sampleValue(text, 'linkpilot_redirects_total{outcome="too_many_requests",status="429"}'),
    ).toBe(0);
    expect(
      sampleValue(
        text,
        'linkpilot_http_requests_total{method="POST",route="/v1/links",status="201"}',
      ),
    ).toBe(1);
    expect(
      sampleValue(
        text,
        'linkpilot_http_requests_total{method="GET",route="/v1/account",status="200"}',
      ),
    ).toBe(59);
    expect(
      sampleValue(
        text,
        'linkpilot_http_requests_total{method="GET",route="/v1/account",status="429"}',
      ),
    ).toBe(1);
    expect(
      sampleValue(
        text,
        'linkpilot_http_request_duration_seconds_count{method="GET",route="/v1/account"}',
      ),
    ).toBe(60);
    // The first click read the new link and its creator from PostgreSQL; the unknown id is not
    // one a link can have, so no cache was asked. The second click finds the link in memory,
    // unless the new link's first probe (running meanwhile) changed it and evicted it: then it
    // is read again from Redis or PostgreSQL. Either way, two lookups, one per click.
    const lookups = (cache: string, source: string) =>
      sampleValue(
        text,
        `linkpilot_edge_cache_lookups_total{cache="${cache}",source="${source}"}`,
      ) ?? 0;
    expect(lookups('link_record', 'database')).toBeGreaterThanOrEqual(1);
    expect(
      lookups('link_record', 'memory') +
        lookups('link_record', 'redis') +
        lookups('link_record', 'database'),
    ).toBe(2);
    expect(lookups('creator_profile', 'memory')).toBe(1);
    expect(lookups('creator_profile', 'database')).toBe(1);
    expect(sampleValue(text, 'linkpilot_rate_limit_refusals_total{scope="api"}')).toBe(1);
    expect(sampleValue(text, 'linkpilot_rate_limit_refusals_total{scope="edge"}')).toBe(0);
    expect(
      sampleValue(text, 'linkpilot_probe_results_total{probe="deep_link",status="invalid"}'),
    ).toBe(1);
    expect(
      sampleValue(text, 'linkpilot_probe_results_total{probe="health",status="critical"}'),
    ).toBe(1);
    // Other suites' servers may drain the same Redis streams: the count is there, not exact.
    expect(sampleValue(text, 'linkpilot_click_consumer_written_total')).toBeGreaterThanOrEqual(0);
    // The bundled snapshot (or newer rates a parallel suite stored).
    expect(sampleValue(text, 'linkpilot_fx_rates_age_hours')).toBeGreaterThanOrEqual(0);
    expect(sampleValue(text, 'linkpilot_process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(sampleValue(text, 'linkpilot_nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('should time redirects and admissions, and count excluded hits by reason', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const { linkId } = await createLinkViaApi(createApiClient(t, creator));
    const before = await scrape();
    const read = (text: string, series: string): number => sampleValue(text, series) ?? 0;

    const browser = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/130.0';
    for (let click = 0; click < 3; click++) {
      await t.http.get(`/r/${linkId}`).set('User-Agent', browser).expect(302);
    }
    await t.http.head(`/r/${linkId}`).set('User-Agent', browser).expect(302);
    await t.http.get(`/r/${linkId}`).set('User-Agent', 'Googlebot/2.1').expect(302);
    await t.http.get(`/r/${linkId}`).set('User-Agent', 'Slackbot-LinkExpanding 1.0').expect(302);
    // The Fastify front (a request with an Origin) is timed too.
    await t.http
      .get(`/r/${linkId}`)
      .set('User-Agent', browser)
      .set('Origin', 'https://blog.example')
      .expect(302);
    const after = await scrape();
    const added = (series: string): number => read(after, series) - read(before, series);

    expect(added('linkpilot_excluded_hits_total{reason="head"}')).toBe(1);
    expect(added('linkpilot_excluded_hits_total{reason="bot_user_agent"}')).toBe(1);
    expect(added('linkpilot_excluded_hits_total{reason="link_preview"}')).toBe(1);
    for (const reason of ['bot_score', 'ip_rate_limited', 'creator_rate_limited']) {
      expect(added(`linkpilot_excluded_hits_total{reason="${reason}"}`)).toBe(0);
    }
    expect(added('linkpilot_excluded_hits_total{reason="quota_exhausted"}')).toBe(0);
    // Seven answers of /r/, each timed once, on either front; each bucket holds those at or
    // under its bound, so +Inf holds them all.
    expect(added('linkpilot_redirect_duration_seconds_count')).toBe(7);
    expect(added('linkpilot_redirect_duration_seconds_bucket{le="+Inf"}')).toBe(7);
    expect(added('linkpilot_redirect_duration_seconds_sum')).toBeGreaterThan(0);
    expect(
      read(after, 'linkpilot_redirect_duration_seconds_bucket{le="0.0005"}'),
    ).toBeLessThanOrEqual(read(after, 'linkpilot_redirect_duration_seconds_bucket{le="2.5"}'));
    // The four counted clicks each sent one admission script (the creator's first click of
    // the period two: the quota counter is seeded, then the click admitted).
    expect(added('linkpilot_click_admission_round_trip_seconds_count')).toBeGreaterThanOrEqual(4);
    expect(added('linkpilot_click_admission_round_trip_seconds_count')).toBeLessThanOrEqual(5);
    expect(added('linkpilot_click_admission_round_trip_seconds_sum')).toBeGreaterThan(0);
  });
});

describe('METRICS_HOST (e2e)', () => {
  /** The metrics server's bound interface for an app started with `env`, and a scrape of it. */
  async function boundAddressWith(env: Record<string, string>): Promise<string | undefined> {
    const app = await startTestApp({ METRICS_PORT: '0', ...env });
    try {
      const bound = app.app.get(MetricsServer).address();
      await request(`http://127.0.0.1:${bound?.port}`).get('/metrics').expect(200);
      return bound?.address;
    } finally {
      await app.close();
    }
  }

  it('should bind /metrics to loopback by default, whatever interface the API listens on', async () => {
    await expect(boundAddressWith({ HOST: '0.0.0.0' })).resolves.toBe('127.0.0.1');
  });

  it('should bind /metrics to the interface METRICS_HOST names', async () => {
    await expect(boundAddressWith({ HOST: '127.0.0.1', METRICS_HOST: '0.0.0.0' })).resolves.toBe(
      '0.0.0.0',
    );
  });
});
