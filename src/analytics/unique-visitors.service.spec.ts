import type { Clock } from '../common/clock';
import type { KvStore } from '../kv/kv-store';
import type { QuerySource } from './click-rollup-reads.repository';
import { addToRegisters, emptyRegisters, serialize } from './hyperloglog';
import { sketchKeyOf } from './unique-visitors';
import { UniqueVisitorsService } from './unique-visitors.service';
import type { VisitorSketchesRepository } from './visitor-sketches.repository';

const NOW_MS = Date.parse('2026-11-26T12:00:00Z');
const SCOPE = { creatorId: '01KCREATOR0000000000000000', environment: 'live' as const };
const TODAY = { periodStart: '2026-11-26', periodEnd: '2026-11-26' };

/** A store holding today's creator sketch of three visitors, failing its first reads. */
function storeFailingFirst(failures: number, message: string) {
  const registers = emptyRegisters();
  for (const visitor of ['a', 'b', 'c']) addToRegisters(registers, visitor);
  const todayKey = sketchKeyOf(SCOPE.creatorId, SCOPE.environment, null, '2026-11-26');
  let reads = 0;
  const store = {
    getBytes: (keys: readonly string[]) => {
      reads++;
      if (reads <= failures) return Promise.reject(new Error(message));
      return Promise.resolve(keys.map((key) => (key === todayKey ? serialize(registers) : null)));
    },
  } as unknown as KvStore;
  return { store, reads: () => reads };
}

function serviceOver(store: KvStore): UniqueVisitorsService {
  const sketches = {
    registersOf: () => Promise.resolve([]),
  } as unknown as VisitorSketchesRepository;
  const clock: Clock = { nowMs: () => NOW_MS };
  return new UniqueVisitorsService(store, sketches, clock);
}

describe(UniqueVisitorsService.name, () => {
  const source = {} as QuerySource;

  it('should count through a store that lost its connection for a moment (a failover)', async () => {
    const { store, reads } = storeFailingFirst(2, 'Connection is closed.');
    await expect(serviceOver(store).count(source, SCOPE, TODAY, null)).resolves.toBe(3);
    expect(reads()).toBe(3);
  });

  it('should give an error that is not a lost connection at once', async () => {
    const { store, reads } = storeFailingFirst(1, 'WRONGTYPE Operation against a key');
    await expect(serviceOver(store).count(source, SCOPE, TODAY, null)).rejects.toThrow('WRONGTYPE');
    expect(reads()).toBe(1);
  });
});
