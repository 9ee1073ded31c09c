import * as fc from 'fast-check';
import {
  ClickPartition,
  droppablePartitions,
  monthStartBefore,
  rollupPurgeBound,
} from './click-retention-months';

const at = (iso: string): Date => new Date(iso);
const monthIndexOf = (instant: Date): number =>
  instant.getUTCFullYear() * 12 + instant.getUTCMonth();
const monthStartOf = (index: number): Date =>
  new Date(Date.UTC(Math.floor(index / 12), index % 12, 1));

/** The partition of `clicks_YYYY_MM` for the month with this index (year × 12 + month). */
function monthPartition(index: number): ClickPartition {
  const from = monthStartOf(index);
  return {
    name: `clicks_${from.toISOString().slice(0, 7).replace('-', '_')}`,
    bound: `FOR VALUES FROM ('${from.toISOString()}') TO ('${monthStartOf(index + 1).toISOString()}')`,
    isDefault: false,
    from,
    to: monthStartOf(index + 1),
  };
}

const DEFAULT_PARTITION: ClickPartition = {
  name: 'clicks_default',
  bound: 'DEFAULT',
  isDefault: true,
  from: null,
  to: null,
};

/** The instant `months` calendar months after `instant`, on the last day where it has none. */
function addMonths(instant: Date, months: number): Date {
  const year = instant.getUTCFullYear();
  const month = instant.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      year,
      month,
      Math.min(instant.getUTCDate(), lastDay),
      instant.getUTCHours(),
      instant.getUTCMinutes(),
      instant.getUTCSeconds(),
      instant.getUTCMilliseconds(),
    ),
  );
}

// 1970 to 2200, to the millisecond.
const instants = fc.integer({ min: 0, max: Date.UTC(2200, 0, 1) }).map((ms) => new Date(ms));
const retentionMonths = fc.integer({ min: 1, max: 60 });

/** Monthly partitions from `back` months before now's to 3 ahead, as the service creates them. */
function partitionsAround(now: Date, back: number): ClickPartition[] {
  const current = monthIndexOf(now);
  return [
    DEFAULT_PARTITION,
    ...Array.from({ length: back + 4 }, (_, i) => monthPartition(current - back + i)),
  ];
}

describe(monthStartBefore.name, () => {
  it.each([
    ['2026-11-26T07:05:53.000Z', 13, '2025-10-01T00:00:00.000Z'],
    ['2026-01-01T00:00:00.000Z', 1, '2025-12-01T00:00:00.000Z'],
    ['2026-03-31T23:59:59.999Z', 1, '2026-02-01T00:00:00.000Z'],
    ['2024-02-29T12:00:00.000Z', 37, '2021-01-01T00:00:00.000Z'],
  ])('should answer the month start %s minus %i months as %s', (now, months, expected) => {
    expect(monthStartBefore(Date.parse(now), months).toISOString()).toBe(expected);
  });
});

describe(droppablePartitions.name, () => {
  it('should drop the months before the cutoff, oldest first, and keep the rest', () => {
    const now = at('2026-11-26T07:05:53.000Z');
    const partitions = partitionsAround(now, 16).reverse();

    const dropped = droppablePartitions(partitions, monthStartBefore(now.getTime(), 13));

    expect(dropped.map((partition) => partition.name)).toEqual([
      'clicks_2025_07',
      'clicks_2025_08',
      'clicks_2025_09',
    ]);
  });

  it('should never drop the DEFAULT partition nor one open towards the future', () => {
    const open: ClickPartition = { ...monthPartition(2000 * 12), to: null, bound: 'MAXVALUE' };
    const fromMinValue: ClickPartition = { ...monthPartition(2000 * 12), from: null };

    expect(
      droppablePartitions([DEFAULT_PARTITION, open, fromMinValue], at('2026-01-01T00:00:00Z')),
    ).toEqual([fromMinValue]);
  });

  it('should never drop a partition holding a click younger than the retention', () => {
    fc.assert(
      fc.property(
        instants,
        retentionMonths,
        fc.integer({ min: 0, max: 80 }),
        (now, months, back) => {
          const dropped = droppablePartitions(
            partitionsAround(now, back),
            monthStartBefore(now.getTime(), months),
          );
          for (const { to } of dropped) {
            // Its newest possible click, `months` months on, is still in the past.
            const newest = new Date((to as Date).getTime() - 1);
            expect(addMonths(newest, months).getTime()).toBeLessThan(now.getTime());
          }
        },
      ),
    );
  });

  it('should drop exactly the months ending before the month `months` before the current one', () => {
    fc.assert(
      fc.property(
        instants,
        retentionMonths,
        fc.integer({ min: 0, max: 80 }),
        (now, months, back) => {
          const partitions = partitionsAround(now, back);

          const dropped = new Set(
            droppablePartitions(partitions, monthStartBefore(now.getTime(), months)),
          );

          for (const partition of partitions.filter((p) => !p.isDefault)) {
            const age = monthIndexOf(now) - monthIndexOf(partition.from as Date);
            expect([partition.name, dropped.has(partition)]).toEqual([
              partition.name,
              age > months,
            ]);
          }
        },
      ),
    );
  });
});

describe(rollupPurgeBound.name, () => {
  it('should stop at the cutoff when no raw click older than it is stored', () => {
    const cutoff = at('2023-10-01T00:00:00Z');
    expect(rollupPurgeBound(cutoff, [at('2025-10-01T00:00:00Z')])).toEqual(cutoff);
  });

  it('should stop at the month of the oldest raw click still stored before the cutoff', () => {
    expect(
      rollupPurgeBound(at('2023-10-01T00:00:00Z'), [
        at('2025-10-01T00:00:00Z'),
        at('2022-03-17T08:30:00Z'),
      ]),
    ).toEqual(at('2022-03-01T00:00:00Z'));
  });

  it('should purge nothing beside a partition that starts at MINVALUE', () => {
    expect(rollupPurgeBound(at('2023-10-01T00:00:00Z'), [null])).toBeNull();
  });

  it('should answer a month start never after the cutoff nor any stored raw click', () => {
    fc.assert(
      fc.property(instants, fc.array(instants, { maxLength: 4 }), (now, rawStarts) => {
        const cutoff = monthStartBefore(now.getTime(), 37);

        const bound = rollupPurgeBound(cutoff, rawStarts) as Date;

        expect(bound.getTime()).toBeLessThanOrEqual(cutoff.getTime());
        for (const start of rawStarts) expect(bound.getTime()).toBeLessThanOrEqual(start.getTime());
        expect(bound).toEqual(monthStartOf(monthIndexOf(bound)));
      }),
    );
  });
});
