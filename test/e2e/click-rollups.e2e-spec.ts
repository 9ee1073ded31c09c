import { getRepositoryToken } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { ulid } from 'ulid';
import { ClickRecordMessage, encodeClickRecord } from '../../src/analytics/click-record-codec';
import {
  CLICK_CONSUMER_GROUP,
  ClickStreamConsumer,
} from '../../src/analytics/click-stream.consumer';
import { ClickWritesRepository } from '../../src/analytics/click-writes.repository';
import { CLICK_STREAMS } from '../../src/analytics/click-streams';
import { ClickEntity } from '../../src/analytics/click.entity';
import { KvStore, StreamEntry } from '../../src/kv/kv-store';
import { ClickRollupSettler } from '../../src/analytics/click-rollup-settler.service';
import { ClickRollupsRepository } from '../../src/analytics/click-rollups.repository';
import { SandboxService } from '../../src/sandbox/sandbox.service';
import { ClickRollups1764450000000 } from '../../migrations/1764450000000-click-rollups';
import { ClickRollupWatermark1764520000000 } from '../../migrations/1764520000000-click-rollup-watermark';
import { ClickRollupAudienceSplit1764550000000 } from '../../migrations/1764550000000-click-rollup-audience-split';
import { ClickRollupRegionDays1764600000000 } from '../../migrations/1764600000000-click-rollup-region-days';
import { ClickRollupLinkDeltas1764620000000 } from '../../migrations/1764620000000-click-rollup-link-deltas';
import { insertClicks } from '../factories/click.factory';
import { createCreatorWithKey } from '../factories/creator.factory';
import {
  clickWriter,
  moveWatermark,
  randomClicks,
  rollupsOf,
  seededRandom,
  sourceOfRecord,
  storedClicksOf,
  storedRollupsOf,
  unsettledRowsOf,
  writeClicks,
} from '../support/click-rollups';
import { inRolledBackMigration } from '../support/rolled-back-transaction';
import { startTestApp, TestApp } from '../support/test-app';

const CLAIM_IDLE_MS = 100;
const HOUR_MS = 60 * 60 * 1000;

describe('Click rollups (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      CLICK_CONSUMER_ENABLED: 'false',
      CLICK_CLAIM_IDLE_MS: String(CLAIM_IDLE_MS),
    });
  });
  afterAll(() => t.close());

  /** A creator (a real one: the rebuild and the sandbox check) with a few link ids. */
  async function newCreator(links = 3): Promise<{ creatorId: string; linkIds: string[] }> {
    const { creatorId } = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    return { creatorId, linkIds: Array.from({ length: links }, () => ulid()) };
  }

  const expectedOf = (records: ClickRecordMessage[]) => rollupsOf(records.map(sourceOfRecord));

  it('should add the clicks a writer stores to every rollup, by UTC hour, with exact sums', async () => {
    const creators = [await newCreator(), await newCreator(2)];
    const records = randomClicks(300, {
      seed: 1,
      creators,
      days: ['2026-03-31', '2026-04-01'],
    });
    const writer = clickWriter(t.app);
    for (let i = 0; i < records.length; i += 100) {
      await writeClicks(writer, records.slice(i, i + 100));
    }
    const stored = await storedRollupsOf(
      t.app,
      creators.map((c) => c.creatorId),
    );
    expect(stored).toEqual(expectedOf(records));
    // A sum keeps the scale of its clicks column, which the averages are rounded to.
    expect(stored.routeDays[0]).toMatch(/,"\d+\.\d{4}","\d+\.\d{6}"\]$/);
  });

  it('should change nothing when the same entries are written again', async () => {
    const creator = await newCreator();
    const records = randomClicks(120, { seed: 2, creators: [creator], days: ['2026-03-10'] });
    const writer = clickWriter(t.app);
    await writeClicks(writer, records.slice(0, 80));
    const once = await storedRollupsOf(t.app, [creator.creatorId]);
    expect(once).toEqual(expectedOf(records.slice(0, 80)));

    await writeClicks(writer, records.slice(0, 80));
    expect(await storedRollupsOf(t.app, [creator.creatorId])).toEqual(once);
    // A batch of entries partly stored already adds only the new ones.
    await writeClicks(clickWriter(t.app), records.slice(40));
    expect(await storedRollupsOf(t.app, [creator.creatorId])).toEqual(expectedOf(records));
  });

  it('should count the clicks a crashed writer stored once when another claims them again', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    const created = await t.http
      .post('/v1/links')
      .set('Authorization', creator.authorization)
      .send({ originalUrl: 'https://www.amazon.com/dp/B0BDHWDR12', visitorCountry: 'US' })
      .expect(201);
    const linkId = created.body.data.link.linkId as string;
    for (let i = 0; i < 6; i++) {
      await t.http
        .get(`/r/${linkId}`)
        .set('X-Forwarded-For', `198.18.7.${i + 1}`)
        .set('CF-IPCountry', ['US', 'GB', 'IN'][i % 3])
        .redirects(0)
        .expect(302);
    }
    const consumer = (claimIdleMs: number) =>
      new ClickStreamConsumer(
        {
          consumerEnabled: false,
          pollIntervalMs: 250,
          claimIdleMs,
          rollupCompactIntervalMs: 10_000,
        },
        t.app.get(KvStore),
        new ClickWritesRepository(
          t.app.get<Repository<ClickEntity>>(getRepositoryToken(ClickEntity)),
        ),
      );
    // The doomed writer reads and stores its entries, then dies before acknowledging them.
    const doomed = consumer(CLAIM_IDLE_MS);
    await doomed.ensureGroups();
    const held: StreamEntry[] = [];
    for (const stream of CLICK_STREAMS) {
      held.push(
        ...(await t.app
          .get(KvStore)
          .readStreamGroup(stream, CLICK_CONSUMER_GROUP, doomed.consumerName, 500)),
      );
    }
    await doomed.insert(held);
    const afterCrash = await storedRollupsOf(t.app, [creator.creatorId]);
    expect(afterCrash.routeDays.length).toBeGreaterThan(0);

    await new Promise((resolve) => setTimeout(resolve, CLAIM_IDLE_MS + 50));
    const restarted = consumer(CLAIM_IDLE_MS);
    await restarted.drainOnce();
    expect(await storedRollupsOf(t.app, [creator.creatorId])).toEqual(afterCrash);
    const clicks = await storedClicksOf(t.app, [creator.creatorId]);
    expect(clicks).toHaveLength(6);
    expect(afterCrash).toEqual(rollupsOf(clicks));
  });

  it('should not deadlock when several writers add to the same rollup rows at once', async () => {
    const creators = [await newCreator(2), await newCreator(2)];
    // Few keys, each in every batch, in a different order per batch.
    const narrow = (record: ClickRecordMessage): ClickRecordMessage => ({
      ...record,
      merchantId: 'amazon',
      region: 'US',
      networkId: 'amazon_associates',
      preset: 'default',
      outcome: 'routed',
    });
    const random = seededRandom(3);
    const batches = Array.from({ length: 8 * 5 }, (_, i) =>
      randomClicks(120, { seed: 100 + i, creators, days: ['2026-03-15'] })
        .map(narrow)
        .sort(() => random() - 0.5),
    );
    const writers = Array.from({ length: 8 }, () => clickWriter(t.app));
    const results = await Promise.allSettled(
      writers.map(async (writer, w) => {
        for (let round = 0; round < 5; round++) {
          await writeClicks(writer, batches[w * 5 + round]);
        }
      }),
    );
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    expect(
      await storedRollupsOf(
        t.app,
        creators.map((c) => c.creatorId),
      ),
    ).toEqual(expectedOf(batches.flat()));
  });

  it('should fold the deltas into the link rollup, each click once, while writers append and delete', async () => {
    const creators = [await newCreator(2), await newCreator(2)];
    const creatorIds = creators.map((c) => c.creatorId);
    const rollups = t.app.get(ClickRollupsRepository);
    const dataSource = t.app.get(DataSource);
    const linkRows = (table: string): Promise<{ clicks: string }[]> =>
      dataSource.query(
        `SELECT coalesce(sum(clicks), 0) AS clicks FROM ${table} WHERE creator_id = ANY($1)`,
        [creatorIds],
      );
    const first = randomClicks(100, { seed: 20, creators, days: ['2026-03-16'] });
    await writeClicks(clickWriter(t.app), first);
    // Appended, not yet in the link rollup: reads add them up all the same.
    expect(Number((await linkRows('click_rollup_link_deltas'))[0].clicks)).toBe(first.length);
    expect(Number((await linkRows('click_rollup_links'))[0].clicks)).toBe(0);
    expect(await storedRollupsOf(t.app, creatorIds)).toEqual(expectedOf(first));

    let isWriting = true;
    const writers = Array.from({ length: 4 }, async (_, w) => {
      const writer = clickWriter(t.app);
      for (let round = 0; isWriting || round < 3; round++) {
        const records = randomClicks(80, {
          seed: 2_000 + 100 * w + round,
          creators,
          days: ['2026-03-16'],
        });
        await writeClicks(writer, records);
        // A removal folds the deltas first, then takes its clicks out of the link rollup.
        if (round % 3 === 2) {
          await dataSource.query(`DELETE FROM clicks WHERE record_id = ANY($1)`, [
            records.slice(0, 5).map((record) => record.recordId),
          ]);
        }
      }
    });
    const compactions = Array.from({ length: 3 }, async () => {
      for (let i = 0; i < 8; i++) await rollups.compactLinkDeltas();
    });
    try {
      const results = await Promise.allSettled(compactions);
      expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    } finally {
      isWriting = false;
    }
    const results = await Promise.allSettled(writers);
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    const last = randomClicks(30, { seed: 21, creators, days: ['2026-03-16'] });
    await writeClicks(clickWriter(t.app), last);
    const expected = rollupsOf(await storedClicksOf(t.app, creatorIds));
    expect(await storedRollupsOf(t.app, creatorIds)).toEqual(expected);

    // Compacted: the link rollup alone holds every click, each row once per key.
    expect(await rollups.compactLinkDeltas()).toBeGreaterThan(0);
    expect(Number((await linkRows('click_rollup_link_deltas'))[0].clicks)).toBe(0);
    expect(await storedRollupsOf(t.app, creatorIds)).toEqual(expected);
    const [{ links }]: { links: number }[] = await dataSource.query(
      `SELECT count(*)::int AS links FROM click_rollup_links WHERE creator_id = ANY($1)`,
      [creatorIds],
    );
    expect(links).toBe(expected.links.length);
  });

  it('should add only the good entries of a batch that holds a bad one', async () => {
    const creator = await newCreator();
    const records = randomClicks(20, { seed: 4, creators: [creator], days: ['2026-03-11'] });
    const badTime = encodeClickRecord({ ...records[0], recordId: ulid(), clickedAt: 'not a time' });
    const entries = [
      ...records.slice(0, 10).map((record) => encodeClickRecord(record)),
      badTime,
      'not json',
      ...records.slice(10).map((record) => encodeClickRecord(record)),
    ].map((payload, i) => ({ id: `${i + 1}-0`, payload }));
    expect(await clickWriter(t.app).insert(entries)).toBe(20);
    expect(await storedRollupsOf(t.app, [creator.creatorId])).toEqual(expectedOf(records));
  });

  it('should keep the rollups of clicks inserted, updated or deleted by any statement', async () => {
    const creator = await newCreator();
    const seeds = randomClicks(60, { seed: 5, creators: [creator], days: ['2026-03-12'] });
    // The test factory inserts rows straight into the table, as bulk loads through SQL do.
    const rows = await insertClicks(
      t.app,
      creator.creatorId,
      seeds.map(({ creatorId: _, ...seed }) => seed),
    );
    const fromTable = async () => rollupsOf(await storedClicksOf(t.app, [creator.creatorId]));
    expect(await storedRollupsOf(t.app, [creator.creatorId])).toEqual(await fromTable());
    expect((await fromTable()).routeDays.length).toBeGreaterThan(0);

    const dataSource = t.app.get(DataSource);
    await dataSource.query(
      `UPDATE clicks SET visitor_country = 'FR', confidence = 0.5 WHERE record_id = ANY($1)`,
      [rows.slice(0, 10).map((row) => row.recordId)],
    );
    // An update that changes nothing the rollups hold adds nothing either.
    await dataSource.query(
      `UPDATE clicks SET deep_link_used = NOT deep_link_used WHERE creator_id = $1`,
      [creator.creatorId],
    );
    await dataSource.query(`DELETE FROM clicks WHERE record_id = ANY($1)`, [
      rows.slice(10, 20).map((row) => row.recordId),
    ]);
    expect(await storedRollupsOf(t.app, [creator.creatorId])).toEqual(await fromTable());

    // The sandbox reset deletes every test click: their rollup rows go, none left at zero.
    await t.app.get(SandboxService).reset(creator.creatorId);
    const afterReset = await storedRollupsOf(t.app, [creator.creatorId]);
    expect(afterReset).toEqual(await fromTable());
    expect(afterReset.links.some((row) => row.includes('"test"'))).toBe(false);
    expect(afterReset.links.length).toBeGreaterThan(0);
  });

  // The watermark is shared by every test of the run: these move it among hours of 2030, after
  // every other test's clicks (and before the read property test's, which moves it in 2031),
  // and check what holds wherever it is: reads see every click, and the creator rollups hold
  // exactly the link rollup's rows of the hours before it (unsettledRowsOf).
  describe('settling', () => {
    /** The watermark, and the clicks the creator's route days hold: one snapshot. */
    const settledOf = async (creatorId: string): Promise<{ watermark: string; clicks: number }> => {
      const [row]: { watermark: Date; clicks: string }[] = await t.app.get(DataSource).query(
        `SELECT (SELECT hour FROM click_rollup_watermark) AS watermark,
                (SELECT coalesce(sum(clicks), 0) FROM click_rollup_route_days
                  WHERE creator_id = $1) AS clicks`,
        [creatorId],
      );
      return { watermark: new Date(row.watermark).toISOString(), clicks: Number(row.clicks) };
    };

    it('should add the clicks of the open hours to the link rollup only, until their hour is settled', async () => {
      const creator = await newCreator();
      const records = randomClicks(200, {
        seed: 7,
        creators: [creator],
        days: ['2030-03-10', '2030-03-11'],
      });
      const watermark = '2030-03-10T12:00:00.000Z';
      await moveWatermark(t.app, watermark);
      await writeClicks(clickWriter(t.app), records);
      expect(await storedRollupsOf(t.app, [creator.creatorId])).toEqual(expectedOf(records));
      expect(await unsettledRowsOf(t.app, [creator.creatorId])).toBe(0);
      const before = records.filter((record) => record.clickedAt < watermark).length;
      expect(before).toBeGreaterThan(0);
      expect(before).toBeLessThan(records.length);
      // The clicks after the watermark wait in the link rollup (wherever another test of the
      // run may have moved it meanwhile).
      const settled = await settledOf(creator.creatorId);
      expect(settled.clicks).toBe(
        records.filter((record) => record.clickedAt < settled.watermark).length,
      );

      // Settled, then taken back out, then settled again: reads never change.
      for (const hour of [
        '2030-03-11T06:00:00.000Z',
        '2030-03-09T00:00:00.000Z',
        '2030-03-13T00:00:00.000Z',
      ]) {
        await moveWatermark(t.app, hour);
        expect(await storedRollupsOf(t.app, [creator.creatorId])).toEqual(expectedOf(records));
        expect(await unsettledRowsOf(t.app, [creator.creatorId])).toBe(0);
      }

      // Deleted and updated clicks on both sides of the watermark.
      await moveWatermark(t.app, '2030-03-11T00:00:00.000Z');
      const dataSource = t.app.get(DataSource);
      const byTime = [...records].sort((a, b) => a.clickedAt.localeCompare(b.clickedAt));
      const ids = (from: number, to: number) => byTime.slice(from, to).map((r) => r.recordId);
      await dataSource.query(`DELETE FROM clicks WHERE record_id = ANY($1)`, [
        [...ids(0, 10), ...ids(190, 200)],
      ]);
      // Across the watermark both ways: the earliest clicks to the open day and the latest back.
      await dataSource.query(
        `UPDATE clicks SET clicked_at = clicked_at + interval '1 day', device_class = 'tablet' WHERE record_id = ANY($1)`,
        [ids(10, 20)],
      );
      await dataSource.query(
        `UPDATE clicks SET clicked_at = clicked_at - interval '1 day' WHERE record_id = ANY($1)`,
        [ids(180, 190)],
      );
      expect(await storedRollupsOf(t.app, [creator.creatorId])).toEqual(
        rollupsOf(await storedClicksOf(t.app, [creator.creatorId])),
      );
      expect(await unsettledRowsOf(t.app, [creator.creatorId])).toBe(0);
    });

    it('should settle each hour with clicks in its own transaction, up to the hour ended 5 minutes ago', async () => {
      const creator = await newCreator();
      const records = randomClicks(60, { seed: 8, creators: [creator], days: ['2030-05-01'] })
        .map((record, i) => {
          const hour = i % 2 === 0 ? 3 : 7;
          return {
            ...record,
            clickedAt: `2030-05-01T0${hour}:${String(i % 60).padStart(2, '0')}:00.000Z`,
          };
        })
        .map((record) => ({ ...record, recordId: ulid(Date.parse(record.clickedAt)) }));
      await moveWatermark(t.app, '2030-05-01T00:00:00.000Z');
      await writeClicks(clickWriter(t.app), records);
      const repository = t.app.get(ClickRollupsRepository);
      const moves = jest.spyOn(repository, 'moveWatermark');
      const settler = (nowIso: string, consumerEnabled = true) =>
        new ClickRollupSettler(
          {
            consumerEnabled,
            pollIntervalMs: 250,
            claimIdleMs: 30_000,
            rollupCompactIntervalMs: 10_000,
          },
          repository,
          { nowMs: () => Date.parse(nowIso) },
        );
      try {
        // Where no clicks are written, nothing is settled.
        await settler('2030-05-01T09:04:59.000Z', false).settleDue();
        expect(moves).not.toHaveBeenCalled();
        // 09:04:59 less 5 minutes is still within 08:00: hours up to 08:00 are settled. The
        // hours with clicks, 03:00 and 07:00, each in a transaction; the rest passed in them.
        await settler('2030-05-01T09:04:59.000Z').settleDue();
        // (Fewer if another test of the run moved the watermark past them meanwhile.)
        expect(moves.mock.calls.length).toBeLessThanOrEqual(2);
        expect(
          moves.mock.calls.filter(
            ([to]) =>
              !['2030-05-01T04:00:00.000Z', '2030-05-01T08:00:00.000Z'].includes(to.toISOString()),
          ),
        ).toEqual([]);
        expect(await repository.findWatermark()).toBeGreaterThanOrEqual(
          Date.parse('2030-05-01T08:00:00.000Z'),
        );
      } finally {
        moves.mockRestore();
      }
      expect(await storedRollupsOf(t.app, [creator.creatorId])).toEqual(expectedOf(records));
      expect(await unsettledRowsOf(t.app, [creator.creatorId])).toBe(0);
    });

    it('should keep the rollups exact, without deadlocks, when the watermark moves while writers write', async () => {
      const creators = [await newCreator(2), await newCreator(2)];
      const day = '2030-04-05';
      let isWriting = true;
      const random = seededRandom(9);
      const writers = Array.from({ length: 6 }, async (_, w) => {
        const writer = clickWriter(t.app);
        for (let round = 0; isWriting || round < 3; round++) {
          await writeClicks(
            writer,
            randomClicks(60, { seed: 10_000 + 100 * w + round, creators, days: [day] }).sort(
              () => random() - 0.5,
            ),
          );
        }
      });
      const hours = Array.from(
        { length: 12 },
        (_, i) => Date.parse(`${day}T00:00:00.000Z`) + ((i * 5) % 25) * HOUR_MS,
      );
      try {
        for (const hourMs of hours) await moveWatermark(t.app, new Date(hourMs).toISOString());
      } finally {
        isWriting = false;
      }
      const results = await Promise.allSettled(writers);
      expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
      const creatorIds = creators.map((c) => c.creatorId);
      expect(await storedRollupsOf(t.app, creatorIds)).toEqual(
        rollupsOf(await storedClicksOf(t.app, creatorIds)),
      );
      expect(await unsettledRowsOf(t.app, creatorIds)).toBe(0);
    });
  });

  it('should aggregate the clicks already stored when migrated, and remove all it made on down', async () => {
    const creator = await newCreator();
    // Clicks of the link itself: the rollups of these migrations have no source yet
    // (ClickSources1764730000000 adds it: click-sources-migration.e2e-spec.ts).
    const records = randomClicks(40, { seed: 6, creators: [creator], days: ['2026-03-13'] }).map(
      (record) => ({ ...record, source: 'link' as const }),
    );
    // Migrations run unbounded (the CLI's connection), not under the serving statement timeout:
    // the split's down aggregates every settled link row of the shared database.
    await inRolledBackMigration(async (runner) => {
      const migration = new ClickRollups1764450000000();
      const watermark = new ClickRollupWatermark1764520000000();
      const split = new ClickRollupAudienceSplit1764550000000();
      const regionDays = new ClickRollupRegionDays1764600000000();
      const deltas = new ClickRollupLinkDeltas1764620000000();
      await deltas.down(runner);
      await regionDays.down(runner);
      await split.down(runner);
      await watermark.down(runner);
      await migration.down(runner);
      const objects = () =>
        runner.query(
          `SELECT (SELECT count(*) FROM pg_class WHERE relname LIKE 'click\\_rollup%')
              + (SELECT count(*) FROM pg_proc WHERE proname LIKE 'click\\_rollups\\_%')
              + (SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'click\\_rollups\\_%') AS count`,
        ) as Promise<{ count: string }[]>;
      expect(Number((await objects())[0].count)).toBe(0);
      // Stored without rollups (as before the migration), then migrated.
      const writer = new ClickStreamConsumer(
        {
          consumerEnabled: false,
          pollIntervalMs: 250,
          claimIdleMs: 30_000,
          rollupCompactIntervalMs: 10_000,
        },
        t.app.get(KvStore),
        new ClickWritesRepository(runner.manager.getRepository(ClickEntity)),
      );
      await writeClicks(writer, records);
      await migration.up(runner);
      // 4 tables, their 4 unique keys and the link rollup's creator index; 3 functions, 3 triggers.
      expect(Number((await objects())[0].count)).toBe(4 + 4 + 1 + 3 + 3);
      await watermark.up(runner);
      // The watermark and its key, the link rollup's hour index, 3 views.
      expect(Number((await objects())[0].count)).toBe(4 + 4 + 1 + 3 + 3 + 2 + 1 + 3);
      const rows = (table: string) =>
        runner.query(`SELECT clicks FROM ${table} WHERE creator_id = $1`, [
          creator.creatorId,
        ]) as Promise<{ clicks: number }[]>;
      const tables = [
        'click_rollup_links',
        'click_rollup_route_days',
        'click_rollup_route_hours',
        'click_rollup_audience_hours',
      ];
      const totals = async (names: string[]) => {
        for (const table of names) {
          const total = (await rows(table)).reduce((sum, row) => sum + row.clicks, 0);
          expect([table, total]).toEqual([table, records.length]);
        }
      };
      await totals(tables);
      expect((await rows('click_rollup_route_days')).length).toBe(
        expectedOf(records).routeDays.length,
      );
      await split.up(runner);
      // The audience rollup and its view become two of each, with their keys.
      expect(Number((await objects())[0].count)).toBe(4 + 4 + 1 + 3 + 3 + 2 + 1 + 3 + 3);
      await totals(['click_rollup_country_hours', 'click_rollup_device_hours']);
      // Filled from the audience rollup: one row per hour and country, per hour and device.
      expect((await rows('click_rollup_country_hours')).length).toBe(
        expectedOf(records).countryHours.length,
      );
      expect((await rows('click_rollup_device_hours')).length).toBe(
        expectedOf(records).deviceHours.length,
      );
      await regionDays.up(runner);
      // Two more rollups: their tables, keys and views; filled from the settled link rows.
      expect(Number((await objects())[0].count)).toBe(4 + 4 + 1 + 3 + 3 + 2 + 1 + 3 + 3 + 6);
      await totals(['click_rollup_region_days', 'click_rollup_merchant_region_days']);
      expect((await rows('click_rollup_region_days')).length).toBe(
        expectedOf(records).regionDays.length,
      );
      expect((await rows('click_rollup_merchant_region_days')).length).toBe(
        expectedOf(records).merchantRegionDays.length,
      );
      await deltas.up(runner);
      // The deltas, their index and the link rollup's view of both; writers append to them.
      expect(Number((await objects())[0].count)).toBe(4 + 4 + 1 + 3 + 3 + 2 + 1 + 3 + 3 + 6 + 3);
      const more = randomClicks(20, { seed: 16, creators: [creator], days: ['2026-03-13'] });
      await writeClicks(writer, more);
      expect((await rows('click_rollup_link_deltas')).reduce((sum, r) => sum + r.clicks, 0)).toBe(
        more.length,
      );
      for (const view of ['click_rollup_links_all', 'click_rollup_route_days_all']) {
        const total = (await rows(view)).reduce((sum, row) => sum + Number(row.clicks), 0);
        expect([view, total]).toEqual([view, records.length + more.length]);
      }
    });
  });
});
