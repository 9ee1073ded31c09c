import { DataSource, EntityManager } from 'typeorm';
import { ulid } from 'ulid';
import { ClickRecordMessage } from '../../src/analytics/click-record-codec';
import { runCli } from '../../src/cli/run-cli';
import { createCreatorWithKey } from '../factories/creator.factory';
import {
  clickWriter,
  randomClicks,
  rollupsOf,
  sourceOfRecord,
  storedClicksOf,
  storedRollupsOf,
  moveWatermark,
  unsettledRowsOf,
  writeClicks,
} from '../support/click-rollups';
import { startTestApp, TestApp } from '../support/test-app';

/** Runs one CLI command in-process against the run's database; returns exit code, JSON, stderr. */
async function cli(
  ...args: string[]
): Promise<{ code: number; json: Record<string, any>; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    [...args, '--json'],
    { ...process.env, LOG_LEVEL: 'fatal' },
    { out: (text) => (stdout += text), err: (text) => (stderr += text) },
  );
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return { code, json: JSON.parse(lines[0]) as Record<string, any>, stderr };
}

const DAYS = ['2026-04-07', '2026-04-08', '2026-04-09'];

describe('analytics rebuild (e2e)', () => {
  let t: TestApp;
  let dataSource: DataSource;
  beforeAll(async () => {
    t = await startTestApp({ CLICK_CONSUMER_ENABLED: 'false' });
    dataSource = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  /** A creator whose clicks of DAYS went through the writer; answers its id and clicks. */
  async function creatorWithClicks(
    seed: number,
  ): Promise<{ creatorId: string; records: ClickRecordMessage[] }> {
    const { creatorId } = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    const records = randomClicks(150, {
      seed,
      creators: [{ creatorId, linkIds: [ulid(), ulid()] }],
      days: DAYS,
    }).filter((record) => DAYS.includes(record.clickedAt.slice(0, 10)));
    await writeClicks(clickWriter(t.app), records);
    expect(await storedRollupsOf(t.app, [creatorId])).toEqual(
      rollupsOf(records.map(sourceOfRecord)),
    );
    return { creatorId, records };
  }

  /**
   * Damage of every kind to one day of the creator's rollups, in one transaction holding the
   * rollups as the rebuild does: its multi-row writes do not take row locks in key order, so
   * beside running writers they could otherwise deadlock with them.
   */
  async function corruptDay(creatorId: string, day: string): Promise<void> {
    await dataSource.transaction(async (manager) => {
      await manager.query(
        `LOCK TABLE click_rollup_links, click_rollup_route_days, click_rollup_route_hours,
                    click_rollup_country_hours, click_rollup_device_hours
                    IN SHARE ROW EXCLUSIVE MODE`,
      );
      await damageDay(manager, creatorId, day);
    });
  }

  async function damageDay(manager: EntityManager, creatorId: string, day: string): Promise<void> {
    const inDay = `creator_id = $1 AND hour >= $2::date::timestamp AT TIME ZONE 'UTC'
      AND hour < ($2::date + 1)::timestamp AT TIME ZONE 'UTC'`;
    await manager.query(
      `DELETE FROM click_rollup_links WHERE ctid IN (SELECT ctid FROM click_rollup_links WHERE ${inDay} LIMIT 3)`,
      [creatorId, day],
    );
    await manager.query(
      `UPDATE click_rollup_route_days SET clicks = clicks + 5, epc_sum = epc_sum + 1
        WHERE ctid IN (SELECT ctid FROM click_rollup_route_days WHERE creator_id = $1 AND day = $2 LIMIT 1)`,
      [creatorId, day],
    );
    await manager.query(
      `INSERT INTO click_rollup_route_days VALUES ($1, 'live', $2, 'nowhere', NULL, 'default', 'routed', 7, 1, 1)`,
      [creatorId, day],
    );
    await manager.query(
      `UPDATE click_rollup_route_hours SET clicks = clicks - 1
        WHERE ctid IN (SELECT ctid FROM click_rollup_route_hours WHERE ${inDay} LIMIT 1)`,
      [creatorId, day],
    );
    await manager.query(`DELETE FROM click_rollup_country_hours WHERE ${inDay}`, [creatorId, day]);
    await manager.query(
      `UPDATE click_rollup_device_hours SET clicks = clicks + 2
        WHERE ctid IN (SELECT ctid FROM click_rollup_device_hours WHERE ${inDay} LIMIT 1)`,
      [creatorId, day],
    );
  }

  it('should restore deleted and corrupted rollups exactly, and change nothing the second time', async () => {
    const { creatorId, records } = await creatorWithClicks(11);
    for (const day of DAYS) await corruptDay(creatorId, day);
    expect(await storedRollupsOf(t.app, [creatorId])).not.toEqual(
      rollupsOf(records.map(sourceOfRecord)),
    );

    const first = await cli('analytics', 'rebuild', '--creator', creatorId);
    expect(first.code).toBe(0);
    expect(first.json.rebuild).toMatchObject({ creators: 1, days: 3, repairedDays: 3 });
    expect(first.json.rebuild.differingRows).toBeGreaterThanOrEqual(3 * 4);
    expect(first.stderr.trim().split('\n')).toEqual(
      DAYS.map((day, i) =>
        expect.stringMatching(
          new RegExp(
            `^analytics rebuild: creator 1/1 ${creatorId}, ${day} \\(day ${i + 1}/3\\): \\d+ rollup rows in \\d+ batches, \\d+ rows corrected$`,
          ),
        ),
      ),
    );
    const rebuilt = await storedRollupsOf(t.app, [creatorId]);
    expect(rebuilt).toEqual(rollupsOf(records.map(sourceOfRecord)));

    const second = await cli('analytics', 'rebuild', '--creator', creatorId);
    expect(second.json.rebuild).toEqual({
      creators: 1,
      days: 3,
      batches: first.json.rebuild.batches,
      rows: first.json.rebuild.rows,
      differingRows: 0,
      repairedDays: 0,
    });
    expect(second.stderr).toMatch(/unchanged\n$/);
    expect(await storedRollupsOf(t.app, [creatorId])).toEqual(rebuilt);
  });

  it('should rebuild only the days asked for, and none before the creator’s oldest click', async () => {
    const { creatorId, records } = await creatorWithClicks(12);
    for (const day of DAYS) await corruptDay(creatorId, day);
    // Rollups older than every stored click may be all that is left of them: kept.
    await dataSource.query(
      `INSERT INTO click_rollup_route_days VALUES ($1, 'live', '2026-04-01', 'amazon', 'awin', 'default', 'routed', 9, 1, 1)`,
      [creatorId],
    );

    const middle = await cli(
      'analytics',
      'rebuild',
      '--creator',
      creatorId,
      '--from',
      DAYS[1],
      '--to',
      DAYS[1],
    );
    expect(middle.json.rebuild).toMatchObject({ days: 1, repairedDays: 1 });
    const stored = await storedRollupsOf(t.app, [creatorId]);
    const expected = rollupsOf(records.map(sourceOfRecord));
    const ofDay = (rows: string[], day: string) => rows.filter((row) => row.includes(`"${day}`));
    expect(ofDay(stored.links, DAYS[1])).toEqual(ofDay(expected.links, DAYS[1]));
    expect(ofDay(stored.routeDays, DAYS[1])).toEqual(ofDay(expected.routeDays, DAYS[1]));
    expect(ofDay(stored.countryHours, DAYS[1])).toEqual(ofDay(expected.countryHours, DAYS[1]));
    expect(ofDay(stored.deviceHours, DAYS[1])).toEqual(ofDay(expected.deviceHours, DAYS[1]));
    expect(ofDay(stored.routeDays, DAYS[0])).not.toEqual(ofDay(expected.routeDays, DAYS[0]));

    const all = await cli('analytics', 'rebuild', '--creator', creatorId, '--from', '2026-03-01');
    expect(all.json.rebuild).toMatchObject({ days: 3, repairedDays: 2 });
    const after = await storedRollupsOf(t.app, [creatorId]);
    expect(ofDay(after.routeDays, '2026-04-01')).toHaveLength(1);
    expect({
      ...after,
      routeDays: after.routeDays.filter((row) => !row.includes('"2026-04-01"')),
    }).toEqual(expected);
  });

  it('should rebuild every creator with clicks when no creator is named', async () => {
    const { creatorId, records } = await creatorWithClicks(13);
    await corruptDay(creatorId, DAYS[2]);
    const { code, json } = await cli('analytics', 'rebuild', '--from', DAYS[2], '--to', DAYS[2]);
    expect(code).toBe(0);
    expect(json.rebuild.creators).toBeGreaterThanOrEqual(1);
    expect(json.rebuild.repairedDays).toBeGreaterThanOrEqual(1);
    expect(await storedRollupsOf(t.app, [creatorId])).toEqual(
      rollupsOf(records.map(sourceOfRecord)),
    );
  });

  it('should keep the rollups exact when clicks are written during a rebuild', async () => {
    const { creatorId } = await creatorWithClicks(14);
    const linkIds = [ulid(), ulid()];
    let isWriting = true;
    const writers = Array.from({ length: 3 }, async (_, w) => {
      const writer = clickWriter(t.app);
      for (let round = 0; isWriting; round++) {
        const batch = randomClicks(30, {
          seed: 1000 * w + round,
          creators: [{ creatorId, linkIds }],
          days: [DAYS[1]],
        });
        await writeClicks(writer, batch);
      }
    });
    try {
      for (let run = 0; run < 8; run++) {
        await corruptDay(creatorId, DAYS[1]);
        const { code, json } = await cli(
          'analytics',
          'rebuild',
          '--creator',
          creatorId,
          '--from',
          DAYS[1],
          '--to',
          DAYS[1],
        );
        expect([code, json.rebuild?.repairedDays]).toEqual([0, 1]);
      }
    } finally {
      isWriting = false;
      await Promise.all(writers);
    }
    expect(await storedRollupsOf(t.app, [creatorId])).toEqual(
      rollupsOf(await storedClicksOf(t.app, [creatorId])),
    );
  });

  it('should rebuild the creator rollups of the settled hours only, the watermark within the day', async () => {
    // 2030: after every click of the other tests (the watermark is shared by the run).
    const day = '2030-06-07';
    const { creatorId } = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    const records = randomClicks(150, {
      seed: 15,
      creators: [{ creatorId, linkIds: [ulid(), ulid()] }],
      days: [day],
    }).filter((record) => record.clickedAt.startsWith(day));
    await moveWatermark(t.app, `${day}T12:00:00.000Z`);
    await writeClicks(clickWriter(t.app), records);
    await corruptDay(creatorId, day);
    // Rows for hours the creator rollups must not hold (after the watermark) are damage too.
    await dataSource.query(
      `INSERT INTO click_rollup_route_hours VALUES ($1, 'live', $2, 'awin', 'routed', 4)`,
      [creatorId, `${day}T20:00:00.000Z`],
    );

    const { code, json } = await cli('analytics', 'rebuild', '--creator', creatorId);
    expect([code, json.rebuild?.repairedDays]).toEqual([0, 1]);
    expect(await storedRollupsOf(t.app, [creatorId])).toEqual(
      rollupsOf(records.map(sourceOfRecord)),
    );
    expect(await unsettledRowsOf(t.app, [creatorId])).toBe(0);
  });

  it.each([
    [['--from', '2026-02-30'], 2, 'INVALID_ARGUMENTS', /2026-02-30 does not exist/],
    [['--to', 'yesterday'], 2, 'INVALID_ARGUMENTS', /YYYY-MM-DD/],
    [
      ['--from', '2026-03-05', '--to', '2026-03-01'],
      2,
      'INVALID_ARGUMENTS',
      /--from \(2026-03-05\) must be on or before --to \(2026-03-01\)/,
    ],
    [['--creator', 'no-such-creator'], 1, 'CREATOR_NOT_FOUND', /no-such-creator/],
  ])('should refuse %j with exit %i and %s', async (args, exitCode, errorCode, message) => {
    const { code, json } = await cli('analytics', 'rebuild', ...args);
    expect(code).toBe(exitCode);
    expect(json.error).toMatchObject({ code: errorCode, message: expect.stringMatching(message) });
  });
});
