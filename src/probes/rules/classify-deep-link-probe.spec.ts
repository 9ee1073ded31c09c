import * as fc from 'fast-check';
import { classifyDeepLinkProbe } from './classify-deep-link-probe';
import {
  DeepLinkProbeResult,
  DeepLinkVerdict,
  PROBE_BUDGET_MS,
  ProbeFailure,
} from './probe-results';

const answered = (statusCode: number, elapsedMs = 120): DeepLinkProbeResult => ({
  kind: 'answered',
  statusCode,
  elapsedMs,
});

describe(classifyDeepLinkProbe.name, () => {
  it.each<[string, DeepLinkProbeResult, DeepLinkVerdict]>([
    ['HEAD answered 200', answered(200), 'validated'],
    ['HEAD answered 204', answered(204), 'validated'],
    ['HEAD answered 301', answered(301), 'validated'],
    ['HEAD answered 302', answered(302), 'validated'],
    ['HEAD answered 308', answered(308), 'validated'],
    ['HEAD answered 200 exactly at the budget', answered(200, PROBE_BUDGET_MS), 'validated'],
    ['HEAD answered 200 one ms over the budget', answered(200, PROBE_BUDGET_MS + 1), 'invalid'],
    ['HEAD answered 100', answered(100), 'invalid'],
    ['HEAD answered 404', answered(404), 'invalid'],
    ['HEAD answered 405', answered(405), 'invalid'],
    ['HEAD answered 410', answered(410), 'invalid'],
    ['HEAD answered 500', answered(500), 'invalid'],
    ['HEAD answered 503', answered(503), 'invalid'],
  ])('should classify as %s -> %s', (_name, result, expected) => {
    expect(classifyDeepLinkProbe(result)).toBe(expected);
  });

  it.each<[ProbeFailure]>([
    ['timeout'],
    ['network_error'],
    ['forbidden_target'],
    ['unsupported_url'],
  ])('should classify as invalid when the probe failed with %s', (failure) => {
    expect(classifyDeepLinkProbe({ kind: 'failed', failure })).toBe('invalid');
  });

  it('should validate exactly the 2xx and 3xx answers within the budget when given any answer', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 599 }),
        fc.integer({ min: 0, max: 2 * PROBE_BUDGET_MS }),
        (statusCode, elapsedMs) => {
          const isExpectedValid =
            statusCode >= 200 && statusCode < 400 && elapsedMs <= PROBE_BUDGET_MS;

          expect(classifyDeepLinkProbe(answered(statusCode, elapsedMs))).toBe(
            isExpectedValid ? 'validated' : 'invalid',
          );
        },
      ),
    );
  });
});
