import fc from 'fast-check';
import type { DataSource } from 'typeorm';
import { ClickRollupsRepository } from './click-rollups.repository';

/** What PostgreSQL's driver throws for a statement cancelled at its statement_timeout. */
const statementTimeout = () =>
  Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });

/**
 * A deltas table of `backlog` rows whose compaction statements time out above `mostPerStatement`
 * deltas (a slow disk, a bulk load beside them): records each statement's batch size.
 */
function deltasOf(backlog: number, mostPerStatement: number) {
  const state = { left: backlog, batches: [] as number[] };
  const dataSource = {
    query: (sql: string, [maxRows]: [number]) => {
      expect(sql).toContain('click_rollup_link_deltas_compact');
      state.batches.push(maxRows);
      if (Math.min(maxRows, state.left) > mostPerStatement)
        return Promise.reject(statementTimeout());
      const moved = Math.min(maxRows, state.left);
      state.left -= moved;
      return Promise.resolve([{ moved }]);
    },
  };
  return { state, rollups: new ClickRollupsRepository(dataSource as unknown as DataSource) };
}

describe('ClickRollupsRepository.compactLinkDeltas', () => {
  it('should fold a backlog in statements of 20,000 deltas when they end in time', async () => {
    const { state, rollups } = deltasOf(45_000, Infinity);
    expect(await rollups.compactLinkDeltas()).toBe(45_000);
    expect(state.batches).toEqual([20_000, 20_000, 20_000]);
  });

  it('should rest between the statements of a backlog, never after the last', async () => {
    const { state, rollups } = deltasOf(45_000, Infinity);
    const events: string[] = [];
    const restAfter = jest.fn((busyMs: number) => {
      expect(busyMs).toBeGreaterThanOrEqual(0);
      events.push(`rest after ${state.batches.length}`);
      return Promise.resolve();
    });
    expect(await rollups.compactLinkDeltas({ restAfter })).toBe(45_000);
    expect(events).toEqual(['rest after 1', 'rest after 2']);
  });

  it('should halve the statement after a statement timeout, and move the whole backlog', async () => {
    const { state, rollups } = deltasOf(12_000, 6_000);
    expect(await rollups.compactLinkDeltas()).toBe(12_000);
    expect(state.batches).toEqual([20_000, 10_000, 5_000, 5_000, 5_000]);
  });

  it('should move every delta exactly once whatever the backlog and the statement limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 200_000 }),
        fc.integer({ min: 625, max: 40_000 }),
        async (backlog, mostPerStatement) => {
          const { state, rollups } = deltasOf(backlog, mostPerStatement);
          expect(await rollups.compactLinkDeltas()).toBe(backlog);
          expect(state.left).toBe(0);
          expect(Math.min(...state.batches)).toBeGreaterThanOrEqual(625);
        },
      ),
    );
  });

  it('should give up when even the smallest statement times out, the deltas left for later', async () => {
    const { state, rollups } = deltasOf(10_000, 500);
    await expect(rollups.compactLinkDeltas()).rejects.toThrow('statement timeout');
    expect(state.batches).toEqual([20_000, 10_000, 5_000, 2_500, 1_250, 625]);
    expect(state.left).toBe(10_000);
  });

  it('should not retry an error that is not a statement timeout', async () => {
    const dataSource = { query: jest.fn().mockRejectedValue(new Error('connection terminated')) };
    const rollups = new ClickRollupsRepository(dataSource as unknown as DataSource);
    await expect(rollups.compactLinkDeltas()).rejects.toThrow('connection terminated');
    expect(dataSource.query).toHaveBeenCalledTimes(1);
  });
});
