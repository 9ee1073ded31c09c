import { ClickRollupSettler } from './click-rollup-settler.service';
import type { ClickRollupsRepository } from './click-rollups.repository';

const at = (iso: string): number => Date.parse(iso);

/** A link rollup with rows in the given hours, and a watermark another process may move. */
function fakeRollups(hoursWithRows: string[], watermark: string) {
  const state = { watermarkMs: at(watermark), moves: [] as string[] };
  const rollups = {
    findWatermark: () => Promise.resolve(state.watermarkMs),
    findFirstLinkHourFrom: (from: Date) => {
      const later = hoursWithRows.map(at).filter((ms) => ms >= from.getTime());
      return Promise.resolve(later.length === 0 ? null : new Date(Math.min(...later)));
    },
    moveWatermark: (to: Date) => {
      const before = state.watermarkMs;
      state.moves.push(to.toISOString());
      state.watermarkMs = Math.max(before, to.getTime());
      return Promise.resolve(before);
    },
  };
  return { state, rollups: rollups as unknown as ClickRollupsRepository };
}

const settlerOf = (rollups: ClickRollupsRepository, nowIso: string, consumerEnabled = true) =>
  new ClickRollupSettler(
    { consumerEnabled, pollIntervalMs: 250, claimIdleMs: 30_000, rollupCompactIntervalMs: 10_000 },
    rollups,
    {
      nowMs: () => at(nowIso),
    },
  );

describe('ClickRollupSettler', () => {
  it('should settle each hour with rows in its own move, up to the hour ended 5 minutes ago', async () => {
    const { state, rollups } = fakeRollups(
      ['2030-05-01T03:00:00.000Z', '2030-05-01T07:00:00.000Z', '2030-05-01T09:00:00.000Z'],
      '2030-05-01T00:00:00.000Z',
    );
    await settlerOf(rollups, '2030-05-01T09:04:59.999Z').settleDue();
    expect(state.moves).toEqual(['2030-05-01T04:00:00.000Z', '2030-05-01T08:00:00.000Z']);

    // Past 09:05 the 08:00 hour is over for good: settled, though it has no rows.
    await settlerOf(rollups, '2030-05-01T09:05:00.000Z').settleDue();
    expect(state.moves.slice(2)).toEqual(['2030-05-01T09:00:00.000Z']);
  });

  it('should pass hours without rows in one move', async () => {
    const { state, rollups } = fakeRollups([], '2030-05-01T00:00:00.000Z');
    await settlerOf(rollups, '2030-05-03T00:30:00.000Z').settleDue();
    expect(state.moves).toEqual(['2030-05-03T00:00:00.000Z']);
  });

  it('should stop where another process already settled', async () => {
    const { state, rollups } = fakeRollups(
      ['2030-05-01T01:00:00.000Z', '2030-05-01T02:00:00.000Z'],
      '2030-05-01T00:00:00.000Z',
    );
    const move = rollups.moveWatermark.bind(rollups);
    rollups.moveWatermark = async (to: Date) => {
      // Another process settled up to 05:00 just before this move took its lock.
      state.watermarkMs = Math.max(state.watermarkMs, at('2030-05-01T05:00:00.000Z'));
      return move(to);
    };
    await settlerOf(rollups, '2030-05-01T05:10:00.000Z').settleDue();
    expect(state.moves).toEqual(['2030-05-01T02:00:00.000Z']);
    expect(state.watermarkMs).toBe(at('2030-05-01T05:00:00.000Z'));
  });

  it('should settle nothing where clicks are not written, nor twice at once', async () => {
    const { state, rollups } = fakeRollups(
      ['2030-05-01T01:00:00.000Z'],
      '2030-05-01T00:00:00.000Z',
    );
    await settlerOf(rollups, '2030-05-01T05:10:00.000Z', false).settleDue();
    expect(state.moves).toEqual([]);

    const settler = settlerOf(rollups, '2030-05-01T05:10:00.000Z');
    await Promise.all([settler.settleDue(), settler.settleDue()]);
    expect(state.moves).toEqual(['2030-05-01T02:00:00.000Z', '2030-05-01T05:00:00.000Z']);
    expect(state.watermarkMs).toBe(at('2030-05-01T05:00:00.000Z'));
  });
});
