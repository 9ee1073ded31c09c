import * as fc from 'fast-check';
import {
  classifyDependency,
  DependencyCheck,
  DependencyStatus,
  HealthStatus,
  overallHealth,
} from './health-status';

const check = (status: DependencyStatus): DependencyCheck => ({ status, latencyMs: 5 });

describe(classifyDependency.name, () => {
  it.each<[string, boolean, number, number, DependencyStatus]>([
    ['it answered quickly', true, 12, 250, 'ok'],
    ['it answered in 0 ms', true, 0, 250, 'ok'],
    ['it answered exactly at the threshold', true, 250, 250, 'ok'],
    ['it answered 1 ms over the threshold', true, 251, 250, 'slow'],
    ['it answered very slowly', true, 900, 250, 'slow'],
    ['it did not answer, however quick the failure', false, 3, 250, 'unreachable'],
    ['it did not answer within the timeout', false, 1000, 250, 'unreachable'],
  ])('should classify the probe when %s', (_name, reachable, latencyMs, slowMs, expected) => {
    expect(classifyDependency(reachable, latencyMs, slowMs)).toBe(expected);
  });
});

describe(overallHealth.name, () => {
  it.each<[DependencyStatus, DependencyStatus, HealthStatus]>([
    ['ok', 'ok', 'ok'],
    ['ok', 'slow', 'degraded'],
    ['slow', 'ok', 'degraded'],
    ['slow', 'slow', 'degraded'],
    ['ok', 'unreachable', 'degraded'],
    ['unreachable', 'ok', 'degraded'],
    ['slow', 'unreachable', 'degraded'],
    ['unreachable', 'slow', 'degraded'],
    ['unreachable', 'unreachable', 'down'],
  ])('should report PostgreSQL %s and Redis %s as %s', (postgres, redis, expected) => {
    expect(overallHealth([check(postgres), check(redis)])).toBe(expected);
  });

  it('should not depend on the order of the checks when given any statuses', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<DependencyStatus>('ok', 'slow', 'unreachable'), {
          minLength: 1,
          maxLength: 4,
        }),
        (statuses) => {
          const checks = statuses.map(check);

          expect(overallHealth([...checks].reverse())).toBe(overallHealth(checks));
        },
      ),
    );
  });
});
