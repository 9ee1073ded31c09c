import fc from 'fast-check';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import {
  bodiesCampaign,
  everyRouteCampaign,
  pathIdsCampaign,
  queriesCampaign,
  rawCampaign,
  redirectsCampaign,
} from '../support/fuzz/campaigns';
import { CrashWatch } from '../support/fuzz/crash-watch';
import { createFuzzFixture, FuzzFixture, LinkLedger } from '../support/fuzz/fixture';
import { Campaign, FuzzDeps, runCampaign } from '../support/fuzz/runner';
import { readFuzzSettings } from '../support/fuzz/settings';
import { FuzzStats } from '../support/fuzz/stats';
import { HttpTarget } from '../support/fuzz/wire';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Property-based fuzzing of the whole HTTP surface against the real app over a real socket:
 * tens of thousands of random and adversarial requests (bodies, query strings, headers, path
 * ids, raw bytes) and links made from generated URLs then clicked. Whatever is sent, the app
 * must never answer 5xx, never crash or stop answering, always answer in the envelope, only
 * ever write a legal absolute Location, and never write a link for a refused request.
 *
 * FUZZ_SEED replays a run (add FUZZ_PATH and `-t <campaign>` for one failure), FUZZ_REQUESTS
 * and FUZZ_TIME_MS resize it, FUZZ_SURVEY=1 lists every distinct failure instead of stopping
 * at the first of each campaign. See test/support/fuzz/.
 */
const settings = readFuzzSettings();

/** Keep-alive connections: enough to keep both CI cores busy while requests wait on I/O. */
const CONNECTIONS = 16;

/**
 * The campaigns in the order they run, with their share of the requests and of the time.
 * A campaign that finishes early leaves its time to the ones after it.
 */
const CAMPAIGNS = [
  { name: 'every route', share: 0.26, build: everyRouteCampaign },
  { name: 'bodies', share: 0.22, build: bodiesCampaign },
  { name: 'queries', share: 0.16, build: queriesCampaign },
  { name: 'path ids', share: 0.14, build: pathIdsCampaign },
  { name: 'redirects', share: 0.2, build: redirectsCampaign },
  { name: 'raw http', share: 0.02, build: rawCampaign },
] as Array<{ name: string; share: number; build: (fixture: FuzzFixture) => Campaign<unknown> }>;

/** Per campaign: its slice of the time, plus a request timeout and shrinking that overrun it. */
const CAMPAIGN_TIMEOUT_MS = settings.timeMs + 60_000;

// eslint-disable-next-line no-console
const report = (text: string): void => console.log(text);

describe('API fuzzing (e2e)', () => {
  let t: TestApp;
  let http: HttpTarget;
  let fixture: FuzzFixture;
  let deps: FuzzDeps;
  let campaigns: Map<string, Campaign<unknown>>;
  const stats = new FuzzStats();
  let deadline = 0;
  let setupMs = 0;

  beforeAll(async () => {
    report(
      `Fuzzing with seed ${settings.seed}: replay with FUZZ_SEED=${settings.seed} ` +
        `(${settings.requests} requests in about ${settings.timeMs / 1000} s${settings.survey ? ', survey mode' : ''})`,
    );
    const started = Date.now();
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    http = new HttpTarget(`http://127.0.0.1:${port}`, CONNECTIONS);
    fixture = await createFuzzFixture(t.app, http);
    const ledger = new LinkLedger(t.app.get(DataSource));
    await ledger.start([
      ...new Set([...fixture.workhorseKeys, ...fixture.oddKeys].map((key) => key.creatorId)),
    ]);
    deps = { http, port, watch: new CrashWatch(), ledger, stats, settings };
    // Building the arbitraries and their first values costs about a second once per process
    // (fast-check's full-Unicode tables): paid here, not out of the first campaign's time.
    campaigns = new Map(CAMPAIGNS.map(({ name, build }) => [name, build(fixture)]));
    for (const campaign of campaigns.values()) {
      fc.sample(campaign.arbitrary, { seed: settings.seed, numRuns: 5 });
    }
    setupMs = Date.now() - started;
    deadline = Date.now() + settings.timeMs;
  }, 120_000);

  afterAll(async () => {
    const perCampaign = [...stats.perCampaign.entries()]
      .map(
        ([name, c]) =>
          `  ${name}: ${c.sent} requests in ${c.batches} batches, ${(c.ms / 1000).toFixed(1)} s`,
      )
      .join('\n');
    const fuzzMs = [...stats.perCampaign.values()].reduce((sum, c) => sum + c.ms, 0);
    report(
      [
        `Fuzz summary (seed ${settings.seed}): ${stats.sent} generated requests in ${(fuzzMs / 1000).toFixed(1)} s ` +
          `(${Math.round(stats.sent / Math.max(1, fuzzMs / 1000))}/s; ${stats.sentWhileShrinking} of them while shrinking; ` +
          `setup ${(setupMs / 1000).toFixed(1)} s)`,
        perCampaign,
        'Statuses per route (shrinking excluded; "* <route>": another method on that path):',
        stats.distribution(),
        ...(process.env.FUZZ_DEBUG === '1' ? ['Most frequent refusals:', stats.topRefusals()] : []),
        `Distinct failures: ${stats.distinctFailures}`,
        stats.failureList(),
      ].join('\n'),
    );
    await http?.close();
    await t?.close();
  });

  let remainingShare = CAMPAIGNS.reduce((sum, c) => sum + c.share, 0);

  it.each(CAMPAIGNS)(
    'should keep every rule under the $name campaign',
    async ({ name, share }) => {
      const campaign = campaigns.get(name) as Campaign<unknown>;
      const timeLimitMs = Math.max(1_000, ((deadline - Date.now()) * share) / remainingShare);
      remainingShare -= share;
      const quota = Math.ceil(settings.requests * share);

      const result = await runCampaign(deps, campaign, quota, timeLimitMs);
      stats.perCampaign.set(campaign.name, {
        sent: result.sent,
        ms: result.ms,
        batches: result.batches,
      });

      if (result.report !== null) {
        throw new Error(
          `Campaign "${campaign.name}" failed.\n${result.report}\n\n` +
            `Replay: FUZZ_SEED=${settings.seed} FUZZ_PATH='<path above>' npx jest test/e2e/fuzz.e2e-spec.ts -t '${name} campaign'`,
        );
      }
      expect(result.sent).toBeGreaterThan(0);
    },
    CAMPAIGN_TIMEOUT_MS,
  );

  // Survey mode never fails a campaign; the list of what it found fails the run instead.
  it('should have found no failure in survey mode', () => {
    if (settings.survey && stats.distinctFailures > 0) {
      throw new Error(`${stats.distinctFailures} distinct failures:\n${stats.failureList()}`);
    }
    expect(stats.sent).toBeGreaterThan(0);
  });
});
