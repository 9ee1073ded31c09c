import { DataSource } from 'typeorm';
import { ulid } from 'ulid';
import { ClickPartitionsService } from '../../src/analytics/click-partitions.service';
import { ClickRecordMessage } from '../../src/analytics/click-record-codec';
import { ClickRollupsRepository } from '../../src/analytics/click-rollups.repository';
import {
  ClickRetentionReport,
  ClickRetentionService,
} from '../../src/analytics/click-retention.service';
import { runCli } from '../../src/cli/run-cli';
import { insertClicks } from '../factories/click.factory';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import {
  clickWriter,
  randomClicks,
  rollupsOf,
  sourceOfRecord,
  storedClicksOf,
  storedRollupsOf,
  writeClicks,
} from '../support/click-rollups';
import { startTestApp, TestApp } from '../support/test-app';
import { TestClock } from '../support/test-clock';

/**
 * A clock of its own, far back, so the months this suite drops belong to no other suite of the
 * shared database: with the defaults (13 and 37 months) at 2004-06-15, raw clicks before
 * 2003-05-01 go, and rollups before 2001-05-01.
 */
const NOW_MS = Date.parse('2004-06-15T12:00:00.000Z');
const RETENTION = { CLICK_RETENTION_MONTHS: '13', ROLLUP_RETENTION_MONTHS: '37' };
/**
 * Days with clicks, either side of both cutoffs (the writer puts some of a day's clicks up to
 * half an hour into the day before or after it, across month edges too).
 */
const DAYS = ['2001-03-10', '2001-06-15', '2003-04-30', '2003-05-01', '2004-06-14'];
/** Where the month partitions are made, as the daily job makes them: the month and 3 ahead. */
const PARTITION_MONTHS = ['2001-03', '2001-06', '2003-04', '2004-06'];
const DUE = [
  'clicks_2001_03',
  'clicks_2001_04',
  'clicks_2001_05',
  'clicks_2001_06',
  'clicks_2001_07',
  'clicks_2001_08',
  'clicks_2001_09',
  'clicks_2003_04',
];
const KEPT = ['clicks_2003_05', 'clicks_2003_06', 'clicks_2003_07', 'clicks_2004_06'];
const LOCK_NAME = 'linkpilot:click-retention';
/** DUE, and any partition of these years an interrupted earlier run on this database left. */
const dueAmongOthers = expect.arrayContaining(DUE) as string[];

/** PGlite runs one session: no second one can hold the lock against this one. */
const isEmbedded = process.env.ANALYTICS_POOL_SIZE === '0';

async function cli(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; json: Record<string, any>; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    [...args, '--json'],
    { ...process.env, LOG_LEVEL: 'fatal', ...env },
    { out: (text) => (stdout += text), err: (text) => (stderr += text) },
  );
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return { code, json: JSON.parse(lines[0]) as Record<string, any>, stderr };
}

describe('click retention (e2e)', () => {
  let t: TestApp;
  let dataSource: DataSource;
  const clock = new TestClock();

  beforeAll(async () => {
    t = await startTestApp({ CLICK_CONSUMER_ENABLED: 'false', ...RETENTION }, { clock });
    dataSource = t.app.get(DataSource);
    for (const month of PARTITION_MONTHS) {
      clock.freezeAt(Date.parse(`${month}-15T00:00:00.000Z`));
      await t.app.get(ClickPartitionsService).ensureAhead();
    }
    clock.freezeAt(NOW_MS);
  });
  afterAll(() => t.close());

  const retention = (dryRun = false) =>
    t.app.get(ClickRetentionService).run({ dryRun }) as Promise<ClickRetentionReport>;

  const attachedPartitions = async (): Promise<string[]> =>
    (
      await dataSource.query(
        `SELECT inhrelid::regclass::text AS name FROM pg_inherits
          WHERE inhparent = 'clicks'::regclass ORDER BY 1`,
      )
    ).map((row: { name: string }) => row.name);

  const exists = async (name: string): Promise<boolean> =>
    (await dataSource.query(`SELECT to_regclass($1) IS NOT NULL AS found`, [name]))[0].found;

  /** What the API answers the creator for these reads, bodies as they are. */
  async function readsOf(creator: TestCreator, paths: string[]): Promise<unknown[]> {
    const bodies: unknown[] = [];
    for (const path of paths) {
      const response = await t.http.get(path).set('Authorization', creator.authorization);
      expect([path, response.status]).toEqual([path, 200]);
      bodies.push(response.body.data);
    }
    return bodies;
  }

  /** Reads of months whose raw clicks go (2001-06, 2003-04) and of one that stays (2003-05). */
  const READS_OF_DROPPED_MONTHS = [
    '/v1/analytics/summary?periodStart=2001-06-01&periodEnd=2001-06-30',
    '/v1/analytics/summary?periodStart=2003-04-01&periodEnd=2003-05-31',
    '/v1/analytics/summary?periodStart=2003-04-30&periodEnd=2003-04-30',
    '/v1/analytics/timeseries?interval=day&from=2003-04-20&to=2003-05-10',
    '/v1/analytics/timeseries?interval=hour&from=2003-04-30&to=2003-05-01&groupBy=country',
    '/v1/analytics/timeseries?interval=day&from=2001-06-01&to=2003-05-31&groupBy=network',
  ];
  const READS_OF_PURGED_MONTH = [
    '/v1/analytics/summary?periodStart=2001-03-01&periodEnd=2001-03-31',
  ];

  it('should drop the old partitions once their rollups are right, keep answering for them, and change nothing the second time', async () => {
    const creators = [
      await createCreatorWithKey(t.app, { plan: 'enterprise' }),
      await createCreatorWithKey(t.app, { plan: 'enterprise' }),
    ];
    const [owner] = creators;
    const creatorIds = creators.map((creator) => creator.creatorId);
    const records: ClickRecordMessage[] = randomClicks(400, {
      seed: 27,
      creators: creators.map(({ creatorId }) => ({ creatorId, linkIds: [ulid(), ulid()] })),
      days: DAYS,
    });
    await writeClicks(clickWriter(t.app), records);
    const since = (day: string) =>
      records.filter((record) => record.clickedAt >= `${day}T00:00:00.000Z`);
    const inDefault = await dataSource.query(
      `SELECT count(*)::int AS count FROM clicks_default WHERE creator_id = ANY($1)`,
      [creatorIds],
    );
    expect(inDefault[0].count).toBe(0);
    // The list covers the raw retention only, from 2003-05-01, before the drop as after it.
    const listed = (from: string, to: string) =>
      t.http
        .get(`/v1/analytics/clicks?from=${from}&to=${to}&limit=100`)
        .set('Authorization', owner.authorization)
        .expect(200);
    // The owner's key is a live one: its list holds live clicks.
    const ownerSince = (day: string) =>
      since(day).filter(
        (record) => record.creatorId === owner.creatorId && record.environment === 'live',
      );
    const listedMay = (await listed('2003-05-01', '2003-05-31')).body.data;
    const ownerMay = ownerSince('2003-05-01').filter((r) => r.clickedAt < '2003-06');
    expect(listedMay.pagination.total).toBe(ownerMay.length);
    expect(listedMay.items.map((item: { recordId: string }) => item.recordId).sort()).toEqual(
      ownerMay.map((record) => record.recordId).sort(),
    );

    // April 2003 is out of the list already, its clicks still stored: records and total agree.
    const listedApril = (await listed('2003-04-01', '2003-04-30')).body.data;
    expect([listedApril.items, listedApril.pagination.total]).toEqual([[], 0]);
    const listedAll = await t.http
      .get('/v1/analytics/clicks?limit=100')
      .set('Authorization', owner.authorization)
      .expect(200);
    expect(listedAll.body.data.pagination.total).toBe(ownerSince('2003-05-01').length);

    const before = await readsOf(owner, READS_OF_DROPPED_MONTHS);
    const purgedBefore = await readsOf(owner, READS_OF_PURGED_MONTH);
    expect(purgedBefore[0]).toMatchObject({ totalClicks: expect.any(Number) });
    expect((purgedBefore[0] as { totalClicks: number }).totalClicks).toBeGreaterThan(0);

    // Rollups of a month due for dropping gone wrong: once its clicks are dropped, nothing
    // could put them right again. (The link rollup's rows, once its deltas are folded in.)
    await t.app.get(ClickRollupsRepository).compactLinkDeltas();
    await dataSource.query(
      `UPDATE click_rollup_route_days SET clicks = clicks + 5, epc_sum = epc_sum + 1
        WHERE ctid IN (SELECT ctid FROM click_rollup_route_days
                        WHERE creator_id = $1 AND day = '2003-04-30' LIMIT 1)`,
      [owner.creatorId],
    );
    await dataSource.query(
      `UPDATE click_rollup_links SET clicks = clicks + 1
        WHERE ctid IN (SELECT ctid FROM click_rollup_links
                        WHERE creator_id = $1 AND hour >= '2003-04-30T12:00Z' AND hour < '2003-05-01' LIMIT 1)`,
      [owner.creatorId],
    );
    expect(await readsOf(owner, READS_OF_DROPPED_MONTHS)).not.toEqual(before);

    const dryRun = await retention(true);
    expect(dryRun).toMatchObject({
      ran: true,
      dryRun: true,
      clicksBefore: '2003-05-01',
      droppedPartitions: dueAmongOthers,
      rollupsBefore: '2001-05-01',
      repairedDays: 0,
    });
    expect(dryRun.deletedRollupRows).toBeGreaterThan(0);
    for (const name of DUE) expect(await exists(name)).toBe(true);

    const report = await retention();
    expect(report).toMatchObject({
      ran: true,
      dryRun: false,
      clicksBefore: '2003-05-01',
      droppedPartitions: dueAmongOthers,
      refusedPartitions: [],
      deferredPartitions: [],
      rollupsBefore: '2001-05-01',
      deletedRollupRows: dryRun.deletedRollupRows,
      oldDefaultPartitionClicks: 0,
    });
    expect(report.repairedDays).toBeGreaterThanOrEqual(1);

    const attached = await attachedPartitions();
    for (const name of DUE) {
      expect([name, await exists(name), attached.includes(name)]).toEqual([name, false, false]);
    }
    for (const name of KEPT) expect([name, attached.includes(name)]).toEqual([name, true]);
    // Raw clicks from 2003-05-01 on; rollups from 2001-05-01 on, repaired.
    expect(rollupsOf(await storedClicksOf(t.app, creatorIds))).toEqual(
      rollupsOf(since('2003-05-01').map(sourceOfRecord)),
    );
    const rollups = await storedRollupsOf(t.app, creatorIds);
    expect(rollups).toEqual(rollupsOf(since('2001-05-01').map(sourceOfRecord)));

    expect(await readsOf(owner, READS_OF_DROPPED_MONTHS)).toEqual(before);
    expect(await readsOf(owner, READS_OF_PURGED_MONTH)).toEqual([
      expect.objectContaining({ totalClicks: 0, byMerchant: [], byNetwork: [] }),
    ]);
    for (const [from, to] of [
      ['2001-06-01', '2001-06-30'],
      ['2003-04-01', '2003-04-30'],
    ]) {
      const list = (await listed(from, to)).body.data;
      expect([from, list.items, list.pagination.total]).toEqual([from, [], 0]);
    }
    expect((await listed('2003-05-01', '2003-05-31')).body.data).toEqual(listedMay);

    const second = await retention();
    expect(second).toMatchObject({
      droppedPartitions: [],
      refusedPartitions: [],
      deferredPartitions: [],
      repairedDays: 0,
      deletedRollupRows: 0,
    });
    expect(await storedRollupsOf(t.app, creatorIds)).toEqual(rollups);
    expect(await attachedPartitions()).toEqual(attached);
  });

  it('should delete unique-visitor sketches older than the rollup retention, and keep the rest', async () => {
    const { creatorId } = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    const linkId = ulid();
    // Either side of the rollup bound (2001-05-01), a link's sketch and the creator's own.
    const sketches = [
      [linkId, '2001-04-30'],
      [null, '2001-04-30'],
      [linkId, '2001-05-01'],
      [null, '2001-05-01'],
      [linkId, '2004-06-14'],
    ];
    for (const [link, day] of sketches) {
      await dataSource.query(
        `INSERT INTO visitor_sketches (creator_id, environment, link_id, day, visitors, registers)
         VALUES ($1, 'live', $2, $3::date, 1, '\\x48594c4c'::bytea)`,
        [creatorId, link, day],
      );
    }
    const storedDays = async (): Promise<string[]> =>
      (
        await dataSource.query(
          `SELECT day::text || ' ' || coalesce(link_id, 'creator') AS row FROM visitor_sketches
            WHERE creator_id = $1 ORDER BY day, link_id NULLS FIRST`,
          [creatorId],
        )
      ).map((row: { row: string }) => row.row);
    const all = await storedDays();
    expect(all).toHaveLength(5);

    const dryRun = await retention(true);
    expect(dryRun).toMatchObject({ rollupsBefore: '2001-05-01' });
    expect(dryRun.deletedSketchRows).toBeGreaterThanOrEqual(2);
    expect(await storedDays()).toEqual(all);

    const report = await retention();
    expect(report).toMatchObject({
      rollupsBefore: '2001-05-01',
      deletedSketchRows: dryRun.deletedSketchRows,
    });
    expect(await storedDays()).toEqual([
      `2001-05-01 creator`,
      `2001-05-01 ${linkId}`,
      `2004-06-14 ${linkId}`,
    ]);
    expect(await retention()).toMatchObject({ deletedSketchRows: 0 });
  });

  it('should keep old clicks of the DEFAULT partition, and the rollups of their months', async () => {
    const { creatorId } = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    // No partition covers December 2000: the click lands in the DEFAULT partition.
    await insertClicks(t.app, creatorId, [
      { clickedAt: '2000-12-15T10:00:00.000Z' },
      { clickedAt: '2000-12-16T10:00:00.000Z' },
    ]);
    try {
      const rollups = await storedRollupsOf(t.app, [creatorId]);
      expect(rollups.routeDays).toHaveLength(2);

      const report = await retention();

      expect(report).toMatchObject({
        droppedPartitions: [],
        oldDefaultPartitionClicks: 2,
        // Not 2001-05-01: rollups of clicks still stored stay.
        rollupsBefore: '2000-12-01',
        deletedRollupRows: 0,
      });
      const [stored] = await dataSource.query(
        `SELECT count(*)::int AS count FROM clicks_default WHERE creator_id = $1`,
        [creatorId],
      );
      expect(stored.count).toBe(2);
      expect(await storedRollupsOf(t.app, [creatorId])).toEqual(rollups);
    } finally {
      // Through clicks, so the triggers take them out of the rollups too.
      await dataSource.query(`DELETE FROM clicks WHERE creator_id = $1`, [creatorId]);
    }
  });

  it('should print what it drops from the CLI, and drop nothing with --dry-run', async () => {
    // The CLI runs on the real clock: months back to June 2002 make its cutoff, so these
    // partitions (January to April 2002) are due and nothing of 2003 or later is, this month
    // or the next.
    clock.freezeAt(Date.parse('2002-01-15T00:00:00.000Z'));
    await t.app.get(ClickPartitionsService).ensureAhead();
    clock.freezeAt(NOW_MS);
    const now = new Date();
    const months = (now.getUTCFullYear() - 2002) * 12 + now.getUTCMonth() - 5;
    const env = { CLICK_RETENTION_MONTHS: String(months), ROLLUP_RETENTION_MONTHS: String(months) };
    const due = ['clicks_2002_01', 'clicks_2002_02', 'clicks_2002_03', 'clicks_2002_04'];

    const dryRun = await cli(env, 'analytics', 'retention', '--dry-run');
    expect(dryRun.code).toBe(0);
    expect(dryRun.json.retention).toMatchObject({
      ran: true,
      dryRun: true,
      droppedPartitions: due,
    });
    for (const name of due) expect(await exists(name)).toBe(true);

    const run = await cli(env, 'analytics', 'retention');
    expect(run.code).toBe(0);
    expect(run.json.retention).toMatchObject({ dryRun: false, droppedPartitions: due });
    expect(run.stderr).toMatch(/^analytics retention: Dropped click partition clicks_2002_01 /m);
    for (const name of due) expect(await exists(name)).toBe(false);
    expect(await exists('clicks_2003_05')).toBe(true);

    const again = await cli(env, 'analytics', 'retention');
    expect(again.json.retention).toMatchObject({ droppedPartitions: [], deletedRollupRows: 0 });
  });

  it('should refuse a retention of rollups shorter than that of the clicks', async () => {
    const { code, json } = await cli(
      { CLICK_RETENTION_MONTHS: '13', ROLLUP_RETENTION_MONTHS: '12' },
      'analytics',
      'retention',
      '--dry-run',
    );
    expect(code).toBe(1);
    expect(json.error).toMatchObject({
      code: 'CONFIG_ERROR',
      message: expect.stringMatching(
        /ROLLUP_RETENTION_MONTHS \(12\) must be at least CLICK_RETENTION_MONTHS \(13\)/,
      ),
    });
  });
});

(isEmbedded ? describe.skip : describe)('click retention beside another session (e2e)', () => {
  let t: TestApp;
  const clock = new TestClock();
  beforeAll(async () => {
    t = await startTestApp({ CLICK_CONSUMER_ENABLED: 'false', ...RETENTION }, { clock });
    clock.freezeAt(NOW_MS);
  });
  afterAll(() => t.close());

  it('should leave the run to the session holding the lock', async () => {
    const holder = t.app.get(DataSource).createQueryRunner();
    try {
      await holder.query(`SELECT pg_advisory_lock(hashtext($1))`, [LOCK_NAME]);

      expect(await t.app.get(ClickRetentionService).run({ dryRun: true })).toEqual({ ran: false });
      const { code, json } = await cli(RETENTION, 'analytics', 'retention', '--dry-run');
      expect([code, json.error?.code]).toEqual([1, 'RETENTION_RUNNING']);

      await holder.query(`SELECT pg_advisory_unlock(hashtext($1))`, [LOCK_NAME]);
      expect(await t.app.get(ClickRetentionService).run({ dryRun: true })).toMatchObject({
        ran: true,
      });
    } finally {
      await holder.release();
    }
  });

  it('should leave a partition to the next run while clicks stay locked, never waiting long', async () => {
    clock.freezeAt(Date.parse('2002-09-15T00:00:00.000Z'));
    await t.app.get(ClickPartitionsService).ensureAhead();
    clock.freezeAt(NOW_MS);
    const due = ['clicks_2002_09', 'clicks_2002_10', 'clicks_2002_11', 'clicks_2002_12'];
    const reader = t.app.get(DataSource).createQueryRunner();
    try {
      // A read of clicks in a transaction still open: the drop's lock waits for it, 2 s a try.
      await reader.startTransaction();
      await reader.query(`SELECT count(*) FROM clicks WHERE clicked_at < '2002-01-01'`);

      const report = await t.app.get(ClickRetentionService).run({ dryRun: false });

      expect(report).toMatchObject({
        droppedPartitions: [],
        deferredPartitions: expect.arrayContaining(due),
      });
      await reader.commitTransaction();
      const next = await t.app.get(ClickRetentionService).run({ dryRun: false });
      expect(next).toMatchObject({
        droppedPartitions: expect.arrayContaining(due),
        deferredPartitions: [],
      });
    } finally {
      if (reader.isTransactionActive) await reader.rollbackTransaction();
      await reader.release();
    }
  });
});
