import * as fc from 'fast-check';
import { classifyHealthProbe, listDroppedTrackingParameters } from './classify-health-probe';
import { HealthProbeResult, HealthVerdict, ProbeHop } from './probe-results';

const START = 'https://shop.example/p/1?utm_source=linkpilot&tag=lp-20';

/** A walk through `depth` redirects that keep the query, ending at `finalStatus`. */
function chain(depth: number, finalStatus = 200, finalQuery = '?utm_source=linkpilot&tag=lp-20') {
  const hops: ProbeHop[] = [];
  for (let i = 0; i < depth; i++) {
    const url = i === 0 ? START : `https://shop.example/hop/${i}?utm_source=linkpilot&tag=lp-20`;
    const next =
      i === depth - 1
        ? `https://shop.example/final${finalQuery}`
        : `https://shop.example/hop/${i + 1}?utm_source=linkpilot&tag=lp-20`;
    hops.push({ url, statusCode: 302, redirectsTo: next });
  }
  const finalUrl = depth === 0 ? START : `https://shop.example/final${finalQuery}`;
  hops.push({ url: finalUrl, statusCode: finalStatus, redirectsTo: null });
  return { hops, stop: 'final_answer' } satisfies HealthProbeResult;
}

const SEVERITY: Record<HealthVerdict, number> = { ok: 0, warning: 1, critical: 2 };

describe(classifyHealthProbe.name, () => {
  it.each<[string, HealthProbeResult, HealthVerdict]>([
    ['a direct 200', chain(0), 'ok'],
    ['a direct 204', chain(0, 204), 'ok'],
    ['one redirect to a 200', chain(1), 'ok'],
    ['two redirects', chain(2), 'warning'],
    ['three redirects', chain(3), 'warning'],
    ['four redirects', chain(4), 'critical'],
    ['five redirects', chain(5), 'critical'],
    ['one redirect that drops utm_source', chain(1, 200, '?tag=lp-20'), 'warning'],
    ['one redirect that drops the network tag', chain(1, 200, '?utm_source=linkpilot'), 'warning'],
    ['one redirect that rewrites utm_source', chain(1, 200, '?utm_source=x&tag=lp-20'), 'warning'],
    [
      'one redirect that adds parameters',
      chain(1, 200, '?utm_source=linkpilot&tag=lp-20&a=b'),
      'ok',
    ],
    ['a direct 404', chain(0, 404), 'critical'],
    ['a direct 410', chain(0, 410), 'critical'],
    ['one redirect to a 404', chain(1, 404), 'critical'],
    ['a direct 403 (bot wall)', chain(0, 403), 'warning'],
    ['a direct 429', chain(0, 429), 'warning'],
    ['a direct 500', chain(0, 500), 'warning'],
    ['a direct 503', chain(0, 503), 'warning'],
    ['a 300 with no Location', chain(0, 300), 'warning'],
    [
      'a redirect loop',
      {
        hops: [
          { url: START, statusCode: 302, redirectsTo: 'https://shop.example/b' },
          { url: 'https://shop.example/b', statusCode: 302, redirectsTo: START },
        ],
        stop: 'redirect_loop',
      },
      'critical',
    ],
    [
      'a self-redirect',
      { hops: [{ url: START, statusCode: 301, redirectsTo: START }], stop: 'redirect_loop' },
      'critical',
    ],
    [
      'the hop limit',
      { ...chain(6), hops: chain(6).hops.slice(0, 6), stop: 'hop_limit' },
      'critical',
    ],
    ['a timeout before any answer', { hops: [], stop: 'timeout' }, 'critical'],
    ['a network error', { hops: [], stop: 'network_error' }, 'critical'],
    ['a refused target', { hops: [], stop: 'forbidden_target' }, 'critical'],
    ['an unsupported URL', { hops: [], stop: 'unsupported_url' }, 'critical'],
    [
      'a redirect to a host that times out',
      { hops: chain(1).hops.slice(0, 1), stop: 'timeout' },
      'critical',
    ],
  ])('should classify %s as %s', (_name, result, expected) => {
    expect(classifyHealthProbe(result)).toBe(expected);
  });

  it('should never rate a walk better when it takes one more redirect', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5 }),
        fc.constantFrom(200, 204, 403, 404, 410, 500),
        (depth, finalStatus) => {
          const shorter = classifyHealthProbe(chain(depth, finalStatus));
          const longer = classifyHealthProbe(chain(depth + 1, finalStatus));

          expect(SEVERITY[longer]).toBeGreaterThanOrEqual(SEVERITY[shorter]);
        },
      ),
    );
  });

  it('should classify every walk that did not end in an answer as critical', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5 }),
        fc.constantFrom(
          'redirect_loop',
          'hop_limit',
          'timeout',
          'network_error',
          'forbidden_target',
          'unsupported_url',
        ) as fc.Arbitrary<HealthProbeResult['stop']>,
        (depth, stop) => {
          expect(classifyHealthProbe({ hops: chain(depth).hops.slice(0, depth), stop })).toBe(
            'critical',
          );
        },
      ),
    );
  });
});

describe(listDroppedTrackingParameters.name, () => {
  it.each<[string, string, string[]]>([
    ['https://a.example/?utm_source=x', 'https://b.example/?utm_source=x', []],
    ['https://a.example/?utm_source=x', 'https://b.example/', ['utm_source']],
    ['https://a.example/?UTM_Medium=y', 'https://b.example/', ['UTM_Medium']],
    ['https://a.example/?awc=1&ref=z', 'https://b.example/?ref=z', ['awc']],
    ['https://a.example/?ref=z', 'https://b.example/', []],
    ['https://a.example/?utm_source=x', 'not a url', []],
  ])('should find what %s loses on its way to %s', (fromUrl, toUrl, expected) => {
    expect(listDroppedTrackingParameters(fromUrl, toUrl)).toEqual(expected);
  });
});
