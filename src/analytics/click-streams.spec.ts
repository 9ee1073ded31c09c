import * as fc from 'fast-check';
import { EDGE_SHARDS, edgeShardOf } from './click-streams';

const ulid = fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/);

describe(edgeShardOf.name, () => {
  it('should be stable and within range, spreading creators over the shards', () => {
    expect(edgeShardOf('01JH2Z8Q6N3V4W5X6Y7Z8A9BCD')).toBe(
      edgeShardOf('01JH2Z8Q6N3V4W5X6Y7Z8A9BCD'),
    );
    const counts = new Array<number>(EDGE_SHARDS).fill(0);
    fc.assert(
      fc.property(ulid, (creatorId) => {
        const shard = edgeShardOf(creatorId);
        expect(shard).toBeGreaterThanOrEqual(0);
        expect(shard).toBeLessThan(EDGE_SHARDS);
        counts[shard]++;
      }),
      { numRuns: 2000 },
    );
    expect(counts.every((count) => count > 0)).toBe(true);
  });
});
