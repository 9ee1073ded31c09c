import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { billingPeriodOf } from '../../src/account/billing-period';
import { quotaCounterKey } from '../../src/clicks/edge-keys';
import { CLICK_CONSUMER_GROUP } from '../../src/analytics/click-stream.consumer';
import { CLICK_STREAMS } from '../../src/analytics/click-streams';
import { displayPrefixOf, generateApiKey, hashApiKey } from '../../src/auth/api-key-format';
import { newUlid } from '../../src/common/ids';
import { sampleValue } from '../support/metrics-text';
import {
  ApiCreator,
  ApiOperation,
  ApiTally,
  campaignOf,
  driveApiMix,
  emptyApiTally,
} from './api-mix';
import {
  AppNode,
  MAX_REPLICA_LAG_S,
  ScaleEnvironment,
  startScaleEnvironment,
} from './scale-environment';
import {
  burstOnOneKey,
  driveRedirects,
  EditProbe,
  emptyRedirectTally,
  loopbackAddress,
  probeEdit,
  RedirectLink,
  send,
} from './scale-load';
import { renderChecks, ScaleCheck } from './scale-report';

/**
 * `npm run test:scale` (docs/scaling.md): Linkpilot scaled out, on servers of its own: a
 * PostgreSQL primary and a streaming replica, a Redis Cluster of three masters with a replica
 * each, three app nodes (the built server) and HAProxy in front (deploy/haproxy.cfg). Through
 * HAProxy: redirects at a fixed rate over many links and visitors, and an API mix. Meanwhile:
 * one app node killed (SIGKILL) and started again, one Redis master failed over (CLUSTER
 * FAILOVER on its replica, then the old master stopped), the PostgreSQL replica stopped for
 * 10 s, then its replay paused past DATABASE_READ_MAX_LAG_S. Then it checks and prints, as a
 * table, that every 302 was counted once, no /r/ answered 5xx beyond what was in flight on
 * the killed node, every created link reads back with its last edit, an edit reached every
 * node within a second, one key's limit held across the nodes, and the analytics reads
 * followed the replica's state; the figures go to bench/results/scale.json.
 */
const ROOT = path.resolve(__dirname, '../..');
const LOAD_SECONDS = Number(process.env.SCALE_DURATION_S ?? 72);
const REDIRECTS_PER_SECOND = Number(process.env.SCALE_REDIRECTS_PER_SECOND ?? 150);
const VISITORS = 20_000;
const CREATORS = 20;
const LINKS_PER_CREATOR = 10;
const API_CREATORS = 6;
const API_CALLS_PER_SECOND_EACH = 3;
const PROBE_LINKS = 4;
/** Enterprise: 600 API requests a minute per key. */
const KEY_LIMIT = 600;
const BURST = 660;
const EDIT_REACHES_EVERY_NODE_MS = 1000;
const SETTLE_LIMIT_MS = 120_000;

/** When each event happens, in seconds from the start of the load. */
const SCHEDULE = {
  keyBurstAt: 3,
  probesFrom: 5,
  probeEvery: 6,
  nodeKilledAt: 15,
  nodeStartedAt: 20,
  redisFailoverAt: 28,
  replicaStoppedAt: 40,
  replicaStartedAt: 50,
  replayPausedAt: 56,
  replayResumedAt: 66,
};

const log = (message: string): void => {
  process.stdout.write(`scale: ${message}\n`);
};

interface SeededCreator {
  creatorId: string;
  apiKey: string;
}

/** Enterprise creators with a live key and an Amazon account, straight into PostgreSQL. */
async function seedCreators(env: ScaleEnvironment, count: number, label: string) {
  const db = await env.primary();
  const creators: SeededCreator[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const creatorId = newUlid();
      const apiKey = generateApiKey('live');
      await db.query(
        `INSERT INTO creators (id, email, display_name, plan_id) VALUES ($1, $2, $3, 'enterprise')`,
        [creatorId, `${label}-${i}@example.com`, `${label} ${i}`],
      );
      await db.query(
        `INSERT INTO api_keys (id, creator_id, key_hash, display_prefix, environment)
         VALUES ($1, $2, $3, $4, 'live')`,
        [newUlid(), creatorId, hashApiKey(apiKey), displayPrefixOf(apiKey)],
      );
      await db.query(
        `INSERT INTO network_accounts (creator_id, network_id, affiliate_id)
         VALUES ($1, 'amazon_associates', $2)`,
        [creatorId, `${label}${i}-20`],
      );
      creators.push({ creatorId, apiKey });
    }
  } finally {
    await db.end();
  }
  return creators;
}

/** Links made through HAProxy, `perCreator` each, in one bulk call per creator. */
async function createLinks(
  port: number,
  creators: SeededCreator[],
  perCreator: number,
  label: string,
): Promise<RedirectLink[]> {
  const links: RedirectLink[] = [];
  for (const [i, { creatorId, apiKey }] of creators.entries()) {
    const answer = await send(port, 'POST', '/v1/links/bulk', {
      localAddress: loopbackAddress(2, 240),
      headers: { authorization: `Bearer ${apiKey}` },
      body: {
        links: Array.from({ length: perCreator }, (_, j) => ({
          originalUrl: `https://www.amazon.com/dp/B0SCALE${String(i).padStart(3, '0')}?${label}=${j}`,
        })),
      },
    });
    if (answer.status !== 207) throw new Error(`bulk create: ${JSON.stringify(answer.body)}`);
    const { created } = (answer.body as { data: { created: { linkId: string }[] } }).data;
    for (const { linkId } of created) links.push({ linkId, creatorId });
  }
  return links;
}

interface ReplicaCheck {
  replica: number;
  status: string;
  lagSeconds: number | null;
}

async function replicaChecksOf(node: AppNode): Promise<ReplicaCheck[] | null> {
  const answer = await send(node.port, 'GET', '/v1/health', { localAddress: '127.0.0.1' });
  if (answer.status !== 200) return null;
  return (answer.body as { data: { checks: { readReplicas: ReplicaCheck[] } } }).data.checks
    .readReplicas;
}

/** Analytics calls answered by the replica and by the primary, summed over running nodes. */
async function analyticsAnsweredBy(
  nodes: AppNode[],
): Promise<{ replica: number; primary: number }> {
  const total = { replica: 0, primary: 0 };
  for (const node of nodes.filter((candidate) => candidate.isRunning())) {
    const text = await (await fetch(`http://127.0.0.1:${node.metricsPort}/metrics`)).text();
    total.replica += sampleValue(text, 'linkpilot_analytics_reads_total{database="replica"}') ?? 0;
    total.primary += sampleValue(text, 'linkpilot_analytics_reads_total{database="primary"}') ?? 0;
  }
  return total;
}

async function untilEveryNode(
  nodes: AppNode[],
  what: string,
  isDone: (checks: ReplicaCheck[]) => boolean,
  timeoutMs = 20_000,
): Promise<ReplicaCheck[][]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const all = await Promise.all(nodes.map(replicaChecksOf));
    if (all.every((checks) => checks !== null && isDone(checks))) return all as ReplicaCheck[][];
    if (Date.now() > deadline)
      throw new Error(`${what}: not within ${timeoutMs} ms (${JSON.stringify(all)})`);
    await delay(200);
  }
}

async function streamBacklog(env: ScaleEnvironment): Promise<{ entries: number; pending: number }> {
  let entries = 0;
  let pending = 0;
  for (const stream of CLICK_STREAMS) {
    entries += await env.admin.xlen(stream);
    const [count] = (await env.admin.xpending(stream, CLICK_CONSUMER_GROUP).catch(() => [0])) as [
      number,
    ];
    pending += count;
  }
  return { entries, pending };
}

function spoolBytes(nodes: AppNode[]): number {
  let bytes = 0;
  for (const node of nodes) {
    const dir = path.join(node.dataDir, 'click-spool');
    if (!fs.existsSync(dir)) continue;
    for (const file of fs.readdirSync(dir)) bytes += fs.statSync(path.join(dir, file)).size;
  }
  return bytes;
}

async function storedClicksByCreator(
  env: ScaleEnvironment,
): Promise<Map<string, { clicks: number; records: number }>> {
  const db = await env.primary();
  try {
    const { rows } = await db.query<{ creator_id: string; clicks: string; records: string }>(
      `SELECT creator_id, count(*) AS clicks, count(DISTINCT record_id) AS records
         FROM clicks GROUP BY creator_id`,
    );
    return new Map(
      rows.map((row) => [
        row.creator_id,
        { clicks: Number(row.clicks), records: Number(row.records) },
      ]),
    );
  } finally {
    await db.end();
  }
}

const sumOf = (values: Iterable<number>): number => [...values].reduce((sum, n) => sum + n, 0);
const serverErrorsOf = (statuses: Record<string, number>): number =>
  sumOf(
    Object.entries(statuses)
      .filter(([status]) => Number(status) >= 500 || status === '0')
      .map(([, count]) => count),
  );

describe('npm run test:scale', () => {
  it('counts every click once and serves through a node kill, a Redis failover and replica faults', async () => {
    const env = await startScaleEnvironment();
    try {
      const [redirectCreators, [limitCreator], [probeCreator]] = [
        await seedCreators(env, CREATORS, 'scale'),
        await seedCreators(env, 1, 'limit'),
        await seedCreators(env, 1, 'probe'),
      ];
      const port = env.haproxy.port;
      const links = await createLinks(port, redirectCreators, LINKS_PER_CREATOR, 'v');
      const probeLinks = await createLinks(port, [probeCreator], PROBE_LINKS, 'probe');
      const apiCreators: ApiCreator[] = redirectCreators.slice(0, API_CREATORS).map((creator) => ({
        ...creator,
        seededLinkIds: links
          .filter((link) => link.creatorId === creator.creatorId)
          .map((link) => link.linkId),
      }));
      log(
        `${links.length} links of ${CREATORS} creators; ${REDIRECTS_PER_SECOND} redirects/s and ` +
          `${API_CREATORS} x ${API_CALLS_PER_SECOND_EACH} API calls/s through HAProxy for ${LOAD_SECONDS} s`,
      );

      const redirects = emptyRedirectTally();
      const api: ApiTally = emptyApiTally();
      const loadStartedAt = Date.now();
      const at = (seconds: number): Promise<void> =>
        delay(Math.max(0, loadStartedAt + seconds * 1000 - Date.now()));
      const loadDone = at(LOAD_SECONDS);
      const redirectLoad = driveRedirects(
        port,
        links,
        { perSecond: REDIRECTS_PER_SECOND, visitors: VISITORS, until: loadDone },
        redirects,
      );
      const apiLoad = driveApiMix(
        port,
        apiCreators,
        { perSecondEach: API_CALLS_PER_SECOND_EACH, until: loadDone },
        api,
      );

      // One key's limit, across whichever nodes HAProxy picks.
      const burst = at(SCHEDULE.keyBurstAt).then(async () => {
        const before = await env.haproxy.servers();
        const answers = await burstOnOneKey(port, limitCreator.apiKey, {
          count: BURST,
          concurrency: 10,
        });
        const after = await env.haproxy.servers();
        // Requests HAProxy sent again meanwhile (any traffic): each may have been counted twice.
        const retried = sumOf(after.map((server, i) => server.retries - before[i].retries));
        return { ...answers, haproxyRetriesMeanwhile: retried };
      });

      // Edit probes, each through the next node, read on every node running.
      const probes: EditProbe[] = [];
      const probing = (async () => {
        for (let n = 0; SCHEDULE.probesFrom + n * SCHEDULE.probeEvery < LOAD_SECONDS - 2; n++) {
          await at(SCHEDULE.probesFrom + n * SCHEDULE.probeEvery);
          const running = env.nodes.filter((node) => node.isRunning());
          const ready = [];
          for (const node of running) {
            const answer = await send(node.port, 'GET', '/readyz', { localAddress: '127.0.0.1' });
            if (answer.status === 200) ready.push(node);
          }
          const link = probeLinks[n % probeLinks.length];
          probes.push(
            await probeEdit(
              ready[n % ready.length],
              ready,
              { ...link, apiKey: probeCreator.apiKey, campaign: `probe-${n}` },
              redirects,
            ),
          );
        }
      })();

      // The killed node: what was in flight when it died bounds what may fail or count twice.
      const killed = env.nodes[1];
      const kill = {
        atSecond: 0,
        redirectsInFlight: 0,
        apiInFlight: 0,
        haproxySessions: 0,
        /**
         * Requests HAProxy had under way on the node when it died: each ends as a response
         * error on that node (and is sent again, or answered 502). Sessions sampled just
         * before the kill can miss one that arrived in between.
         */
        inFlightOnNode: 0,
        restartMs: 0,
      };
      const nodeFault = (async () => {
        await at(SCHEDULE.nodeKilledAt);
        // Not while the key's burst runs: a request the killed node counted and HAProxy sent
        // again would count twice, and the burst measures the limit, not the kill.
        await burst;
        const before = (await env.haproxy.servers()).find((server) => server.name === killed.name);
        kill.haproxySessions = before?.current ?? 0;
        kill.redirectsInFlight = redirects.outstanding;
        kill.apiInFlight = api.outstanding;
        await killed.kill();
        kill.atSecond = Math.round((Date.now() - loadStartedAt) / 100) / 10;
        log(`${kill.atSecond}s: ${killed.name} killed (SIGKILL)`);
        await at(SCHEDULE.nodeStartedAt);
        const after = (await env.haproxy.servers()).find((server) => server.name === killed.name);
        kill.inFlightOnNode = Math.max(
          kill.haproxySessions,
          (after?.responseErrors ?? 0) - (before?.responseErrors ?? 0),
        );
        const startedAt = Date.now();
        await killed.start();
        kill.restartMs = Date.now() - startedAt;
        log(`${killed.name} started again, ready in ${kill.restartMs} ms`);
      })();

      const failover = { master: 0, promoted: 0, ms: 0 };
      const redisFault = (async () => {
        await at(SCHEDULE.redisFailoverAt);
        const [{ master }] = await env.redis.topology();
        const startedAt = Date.now();
        failover.master = master;
        failover.promoted = await env.redis.failOver(master);
        failover.ms = Date.now() - startedAt;
        log(
          `${SCHEDULE.redisFailoverAt}s: Redis master ${master} failed over to ${failover.promoted} ` +
            `in ${failover.ms} ms, old master stopped`,
        );
      })();

      const replica = {
        whileStopped: { replica: 0, primary: 0 },
        whileLagging: { replica: 0, primary: 0 },
        lagSecondsSeen: 0,
        afterResume: { replica: 0, primary: 0 },
      };
      const delta = (
        after: { replica: number; primary: number },
        before: { replica: number; primary: number },
      ) => ({ replica: after.replica - before.replica, primary: after.primary - before.primary });
      const postgresFaults = (async () => {
        await at(SCHEDULE.replicaStoppedAt);
        await env.postgres.stopReplica();
        log(`${SCHEDULE.replicaStoppedAt}s: PostgreSQL replica stopped`);
        const stoppedFrom = await analyticsAnsweredBy(env.nodes);
        await at(SCHEDULE.replicaStartedAt);
        replica.whileStopped = delta(await analyticsAnsweredBy(env.nodes), stoppedFrom);
        await env.postgres.startReplica();
        log(`${SCHEDULE.replicaStartedAt}s: PostgreSQL replica started again`);

        await at(SCHEDULE.replayPausedAt);
        await untilEveryNode(env.nodes, 'replica in use before the pause', (checks) =>
          checks.every((check) => check.status === 'ok'),
        );
        await env.postgres.pauseReplay();
        log(`${SCHEDULE.replayPausedAt}s: replay paused on the replica`);
        const lagging = await untilEveryNode(
          env.nodes,
          'every node skipping the lagging replica',
          (checks) => checks.every((check) => check.status === 'lagging'),
        );
        replica.lagSecondsSeen = Math.min(...lagging.flat().map((check) => check.lagSeconds ?? 0));
        const laggingFrom = await analyticsAnsweredBy(env.nodes);
        await at(SCHEDULE.replayResumedAt);
        replica.whileLagging = delta(await analyticsAnsweredBy(env.nodes), laggingFrom);
        await env.postgres.resumeReplay();
        log(`${SCHEDULE.replayResumedAt}s: replay resumed`);
        await untilEveryNode(env.nodes, 'replica in use again', (checks) =>
          checks.every((check) => check.status === 'ok'),
        );
        const resumedFrom = await analyticsAnsweredBy(env.nodes);
        await loadDone;
        replica.afterResume = delta(await analyticsAnsweredBy(env.nodes), resumedFrom);
      })();

      const [limit] = await Promise.all([
        burst,
        redirectLoad,
        apiLoad,
        probing,
        nodeFault,
        redisFault,
        postgresFaults,
      ]);
      log(
        `load done: ${redirects.sent} redirects sent, ${sumOf(redirects.redirectsByCreator.values())} 302s; settling`,
      );

      // Settled: streams drained and acknowledged, spools empty, PostgreSQL's count still 3 s.
      const settleStartedAt = Date.now();
      let stored = await storedClicksByCreator(env);
      let stillSince = Date.now();
      while (Date.now() - settleStartedAt < SETTLE_LIMIT_MS) {
        await delay(500);
        const now = await storedClicksByCreator(env);
        const total = (counts: typeof now): number =>
          sumOf([...counts.values()].map((c) => c.clicks));
        if (total(now) !== total(stored)) stillSince = Date.now();
        stored = now;
        const backlog = await streamBacklog(env).catch(() => ({ entries: -1, pending: -1 }));
        if (
          backlog.entries === 0 &&
          backlog.pending === 0 &&
          spoolBytes(env.nodes) === 0 &&
          Date.now() - stillSince >= 3_000
        ) {
          break;
        }
      }
      const settleMs = Date.now() - settleStartedAt;

      // Idle now: a caught-up replica must not look stale however long the primary rests.
      await delay(3_000);
      const idleChecks = (await Promise.all(env.nodes.map(replicaChecksOf))).flat();

      // Every click counted once, per creator.
      const period = billingPeriodOf(Date.now()).id;
      // The issue's bound: what HAProxy had under way on the node when it was killed.
      const bound = kill.inFlightOnNode;
      let counterMismatches = 0;
      let duplicated = 0;
      let lost = 0;
      let countedWithoutAnswer = 0;
      for (const { creatorId } of [...redirectCreators, probeCreator]) {
        const answered = redirects.redirectsByCreator.get(creatorId) ?? 0;
        const { clicks, records } = stored.get(creatorId) ?? { clicks: 0, records: 0 };
        const counter = Number(
          (await env.admin.get(quotaCounterKey(creatorId, 'live', period))) ?? 0,
        );
        if (counter !== clicks) counterMismatches++;
        duplicated += clicks - records;
        lost += Math.max(0, answered - clicks);
        countedWithoutAnswer += Math.max(0, clicks - answered);
      }
      const storedTotal = sumOf([...stored.values()].map((c) => c.clicks));
      const answered302 = sumOf(redirects.redirectsByCreator.values());

      // Every link answered 201 reads back, through HAProxy, with its last edit.
      let linksChecked = 0;
      const linkMismatches: string[] = [];
      for (const link of api.links) {
        const answer = await send(port, 'GET', `/v1/links/${link.linkId}`, {
          localAddress: loopbackAddress(2, 230),
          headers: { authorization: `Bearer ${link.creator.apiKey}` },
        });
        linksChecked++;
        const accepted =
          link.deleted === 'yes'
            ? answer.status === 404
            : link.deleted === 'maybe' && answer.status === 404
              ? true
              : answer.status === 200 &&
                [link.lastEdit, ...link.possibleEdits].includes(campaignOf(answer.body));
        if (!accepted) {
          linkMismatches.push(
            `${link.linkId}: ${answer.status} ${String(campaignOf(answer.body))} (last edit ${link.lastEdit})`,
          );
        }
      }

      const haproxyServers = await env.haproxy.servers();
      const killedServer = haproxyServers.find((server) => server.name === killed.name);
      const redirect5xx = serverErrorsOf(redirects.byStatus);
      const analyticsOperations: ApiOperation[] = [
        'analytics_summary',
        'analytics_timeseries',
        'analytics_clicks',
        'analytics_link',
      ];
      const analyticsFailures = api.failures.filter((failure) =>
        analyticsOperations.includes(failure.operation),
      );
      // At capacity is an answer (503 ANALYTICS_BUSY with Retry-After), if asking again after
      // it is answered; anything else, or a busy answer that stays busy, is a failure.
      const answeredOnRetry = (failure: (typeof analyticsFailures)[number]): boolean =>
        failure.code === 'ANALYTICS_BUSY' && failure.retriedStatus === 200;
      const analyticsBusyThen200 = analyticsFailures.filter(answeredOnRetry).length;
      // Each failure named in the table, so a red run says which call failed, when and how.
      const analyticsFailed = analyticsFailures
        .filter((failure) => !answeredOnRetry(failure))
        .map(
          (failure) =>
            `${failure.status} ${failure.code ?? '-'} ${failure.operation} at ` +
            `${(failure.atMs / 1000).toFixed(1)} s on ${failure.servedBy ?? '?'}, ` +
            `asked again: ${failure.retriedStatus ?? 'no'}`,
        );
      const analytics5xx = analyticsFailed.length;
      const other5xx = sumOf(
        (Object.keys(api.statuses) as ApiOperation[])
          .filter((op) => !analyticsOperations.includes(op))
          .map((op) => serverErrorsOf(api.statuses[op])),
      );
      const probeVerdicts = probes.flatMap((probe) => Object.values(probe.nodes));
      const neverFresh = probeVerdicts.filter((verdict) => verdict.freshFromMs === null).length;
      const latestStaleMs = Math.max(
        0,
        ...probeVerdicts.map((verdict) => verdict.staleUntilMs ?? 0),
      );
      const idleLag = Math.max(0, ...idleChecks.map((check) => check?.lagSeconds ?? Infinity));

      const checks: ScaleCheck[] = [
        {
          check: 'quota counter = stored clicks, per creator',
          measured: `${counterMismatches} of ${CREATORS + 1} creators differ`,
          expected: '0',
          pass: counterMismatches === 0,
        },
        {
          check: 'stored clicks, each record once',
          measured: `${storedTotal} stored, ${duplicated} duplicated`,
          expected: '0 duplicated',
          pass: duplicated === 0,
        },
        {
          check: '302 answered and not stored',
          measured: String(lost),
          expected: '0',
          pass: lost === 0,
        },
        {
          check: 'stored without its 302 reaching the visitor',
          measured: `${countedWithoutAnswer} (of ${answered302} 302s)`,
          expected: `<= ${bound} (HAProxy's requests in flight on ${killed.name} at the kill)`,
          pass: countedWithoutAnswer <= bound,
        },
        {
          check: '/r/ answers 5xx or none, through HAProxy',
          measured: `${redirect5xx} of ${redirects.sent}`,
          expected: `<= ${bound} (HAProxy's requests in flight on ${killed.name} at the kill)`,
          pass: redirect5xx <= bound,
        },
        {
          check: 'links answered 201 read back with their last edit',
          measured: `${linksChecked - linkMismatches.length} of ${linksChecked} (${api.unknownCreates} creates of unknown outcome)`,
          expected: `${linksChecked}`,
          pass: linkMismatches.length === 0,
        },
        {
          check: 'reads during the run showing the last edit',
          measured: `${api.staleReads.length} stale`,
          expected: '0 stale',
          pass: api.staleReads.length === 0,
        },
        {
          check: 'edit through one node, old answer on any node',
          measured: `to visits sent up to ${latestStaleMs} ms after it (${probes.length} edits; ${neverFresh} node-edits never fresh in 5 s)`,
          expected: `< ${EDIT_REACHES_EVERY_NODE_MS} ms, 0 never fresh`,
          pass: latestStaleMs < EDIT_REACHES_EVERY_NODE_MS && neverFresh === 0,
        },
        {
          check: `one key's limit across nodes (${BURST} calls)`,
          measured: `${limit.byStatus[200] ?? 0} x 200, ${limit.byStatus[429] ?? 0} x 429 over ${Object.keys(limit.servedBy).length} nodes`,
          expected: `${KEY_LIMIT} x 200, ${BURST - KEY_LIMIT} x 429`,
          pass:
            limit.byStatus[200] === KEY_LIMIT &&
            limit.byStatus[429] === BURST - KEY_LIMIT &&
            Object.keys(limit.servedBy).length === 3,
        },
        {
          check: 'analytics answers 5xx or none',
          measured:
            `${analytics5xx} (and ${analyticsBusyThen200} ANALYTICS_BUSY answered 200 after Retry-After)` +
            analyticsFailed.map((failure) => `; ${failure}`).join(''),
          expected: '0',
          pass: analytics5xx === 0,
        },
        {
          check: 'other API answers 5xx or none',
          measured: String(other5xx),
          expected: `<= ${Math.max(kill.apiInFlight, bound)} (API calls in flight at the kill)`,
          pass: other5xx <= Math.max(kill.apiInFlight, bound),
        },
        {
          check: 'analytics while the replica is stopped',
          measured: `${replica.whileStopped.replica} on replica, ${replica.whileStopped.primary} on primary`,
          expected: '0 on replica, > 0 on primary',
          pass: replica.whileStopped.replica === 0 && replica.whileStopped.primary > 0,
        },
        {
          check: `analytics while replay is paused past ${MAX_REPLICA_LAG_S} s`,
          measured: `${replica.whileLagging.replica} on replica, ${replica.whileLagging.primary} on primary (lag seen ${replica.lagSecondsSeen} s)`,
          expected: '0 on replica, > 0 on primary',
          pass:
            replica.whileLagging.replica === 0 &&
            replica.whileLagging.primary > 0 &&
            // Lag is reported to the millisecond: 3,000.4 ms is past 3 s and reads 3.
            replica.lagSecondsSeen >= MAX_REPLICA_LAG_S,
        },
        {
          check: 'analytics once the replica caught up',
          measured: `${replica.afterResume.replica} on replica`,
          expected: '> 0',
          pass: replica.afterResume.replica > 0,
        },
        {
          check: 'replica lag once idle, every node',
          measured: `${idleLag} s, ${idleChecks.map((check) => check?.status).join('/')}`,
          expected: '< 1 s, ok',
          pass: idleLag < 1 && idleChecks.every((check) => check?.status === 'ok'),
        },
      ];

      const figures = {
        measuredAt: new Date().toISOString(),
        loadSeconds: LOAD_SECONDS,
        schedule: SCHEDULE,
        redirects: { ...redirects, redirectsByCreator: undefined, answered302, storedTotal },
        api: {
          statuses: api.statuses,
          links: api.links.length,
          unknownCreates: api.unknownCreates,
        },
        kill,
        failover,
        replica,
        probes,
        limit,
        haproxy: haproxyServers,
        killedServer,
        settleMs,
        idleChecks,
        linkMismatches: linkMismatches.slice(0, 20),
        staleReads: api.staleReads.slice(0, 20),
        checks,
      };
      fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
      fs.writeFileSync(
        path.join(ROOT, 'bench/results/scale.json'),
        `${JSON.stringify(figures, null, 2)}\n`,
      );
      log(
        `HAProxy per node: ${haproxyServers
          .map(
            (s) =>
              `${s.name} ${s.total} requests, ${s.retries} retries, ${s.redispatches} redispatched`,
          )
          .join('; ')}; settled in ${settleMs} ms`,
      );
      log(
        `redirect statuses ${JSON.stringify(redirects.byStatus)}, slowest ${Math.round(redirects.slowestMs)} ms`,
      );
      log(`API statuses ${JSON.stringify(api.statuses)}`);
      log(`API answers 5xx or none: ${JSON.stringify(api.failures)}`);
      log(`key burst: ${JSON.stringify(limit)}`);
      process.stdout.write(`\n${renderChecks(checks)}\n\n`);

      expect(checks.filter((check) => !check.pass)).toEqual([]);
    } finally {
      await env.stop();
    }
  });
});
