// Recomputes the worked example of docs/routing.md with the engine. The expectations below are
// written out by hand, and every number of the doc's example table is checked against the
// engine too, so neither the doc nor this spec can drift from the code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decideRoute } from './decide-route';
import { fxSnapshot, NOW_MS, seedProfile } from './engine.fixtures';
import type { RoutingDecision, RoutingSignal, SignalName } from './routing-types';

const DOC_PATH = join(__dirname, '../../../docs/routing.md');

const EXAMPLE_URL =
  'https://www.myntra.com/tshirts/roadster/roadster-men-black-printed-t-shirt/1234567/buy?utm_source=instagram&p=2';

function decideExample(): RoutingDecision {
  return decideRoute(
    {
      originalUrl: EXAMPLE_URL,
      merchant: seedProfile('myntra'),
      preset: 'default',
      category: 'fashion',
      passthrough: false,
      probes: { deepLinkStatus: 'validated', healthStatus: 'ok' },
      networkAccounts: { cuelinks: 'cr42', involve_asia: 'cr42ia' },
    },
    { country: 'IN', device: 'mobile', os: 'android', isInAppBrowser: false },
    fxSnapshot({ source: 'primary', isStale: false }),
    NOW_MS,
  );
}

function signalOf(signals: readonly RoutingSignal[], name: SignalName): RoutingSignal {
  const signal = signals.find((candidate) => candidate.name === name);
  if (signal === undefined) {
    throw new Error(`no ${name} signal`);
  }
  return signal;
}

// The doc's example table: `| \`key\` | value | ... |` rows between the two markers.
function readDocTable(): Map<string, string> {
  const doc = readFileSync(DOC_PATH, 'utf8');
  const start = doc.indexOf('<!-- worked-example:start -->');
  const end = doc.indexOf('<!-- worked-example:end -->');
  if (start === -1 || end === -1) {
    throw new Error('docs/routing.md lost its worked-example markers');
  }
  const rows = new Map<string, string>();
  for (const match of doc.slice(start, end).matchAll(/^\|\s*`([^`]+)`\s*\|\s*([^|]+?)\s*\|/gm)) {
    rows.set(match[1], match[2]);
  }
  return rows;
}

describe('worked example (docs/routing.md)', () => {
  const decision = decideExample();
  const winnerSignals = decision.trace.signals;
  const [alternative] = decision.trace.alternatives;
  const multiplierProduct = decision.normalizedEpcUsd / signalOf(winnerSignals, 'epc_base').value;

  // Every quantity the doc's table may name, as the engine computed it.
  const engineValues: Record<string, number> = {
    'fx.INR': signalOf(winnerSignals, 'fx').value,
    'cuelinks.epc_base': signalOf(winnerSignals, 'epc_base').value,
    ...Object.fromEntries(
      winnerSignals
        .filter((signal) => signal.name !== 'epc_base' && signal.name !== 'fx')
        .map((signal) => [`signal.${signal.name}`, signal.value]),
    ),
    multiplier_product: multiplierProduct,
    'cuelinks.intermediateScore': decision.trace.scoringFormula?.intermediateScore ?? NaN,
    'cuelinks.confidenceFactor': decision.confidenceFactor,
    'cuelinks.finalScore': decision.trace.scoringFormula?.finalScore ?? NaN,
    'cuelinks.confidence': decision.trace.winner?.confidence ?? NaN,
    // Same storefront, so the same multipliers: only epc_base differs between the two.
    'involve_asia.epc_base': alternative.normalizedEpcUsd / multiplierProduct,
    'involve_asia.intermediateScore': alternative.normalizedEpcUsd,
    'involve_asia.finalScore': alternative.routeScore,
    score_gap: (decision.trace.winner?.routeScore ?? NaN) - alternative.routeScore,
  };

  it('should route the example to cuelinks on myntra.com', () => {
    expect(decision).toMatchObject({
      outcome: 'routed',
      reason: 'best_epc',
      merchantId: 'myntra',
      region: 'IN',
      networkId: 'cuelinks',
      canonicalUrl: 'https://www.myntra.com/1234567',
      routedUrl:
        'https://www.myntra.com/1234567?cuelinks_subid=cr42&utm_source=cuelinks&utm_medium=affiliate&utm_campaign=linkpilot_default',
      deepLinkUsed: true,
    });
    expect(alternative).toMatchObject({
      networkId: 'involve_asia',
      whyNotChosen: 'scored 0.0094 USD below the winner',
    });
  });

  it.each([
    ['fx.INR', 83.2],
    ['cuelinks.epc_base', 0.0421],
    ['signal.device', 1.09],
    ['signal.deeplink', 1.08],
    ['signal.region_match', 1],
    ['signal.health', 1],
    ['signal.refund', 0.77],
    ['signal.net_trust', 0.9745],
    ['signal.category', 1.2],
    ['signal.cod', 0.8],
    ['signal.ua_penalty', 1],
    ['signal.utm', 1],
    ['signal.availability', 1],
    ['signal.trend', 1],
    ['signal.offer', 1],
    ['signal.deal', 1],
    ['multiplier_product', 0.848],
    ['cuelinks.intermediateScore', 0.0357],
    ['cuelinks.confidenceFactor', 1.0245],
    ['cuelinks.finalScore', 0.0365],
    ['cuelinks.confidence', 100],
    ['involve_asia.epc_base', 0.03125],
    ['involve_asia.intermediateScore', 0.0265],
    ['involve_asia.finalScore', 0.0271],
    ['score_gap', 0.0094],
  ])('should compute %s = %p (4 decimals)', (key, expected) => {
    expect(engineValues[key]).toBeCloseTo(expected, 4);
  });

  it('should print every number of the doc table as the engine computes it', () => {
    const table = readDocTable();
    expect([...table.keys()].sort()).toEqual(Object.keys(engineValues).sort());
    for (const [key, shown] of table) {
      const decimals = shown.includes('.') ? shown.split('.')[1].length : 0;
      // At least 4 decimals, however the doc prints the number.
      const tolerance = 0.5 * 10 ** -Math.max(decimals, 4) + 1e-12;
      expect({ key, gap: Math.abs(Number(shown) - engineValues[key]) <= tolerance }).toEqual({
        key,
        gap: true,
      });
    }
  });

  it("should quote the example's routed URL and whyNotChosen verbatim in the doc", () => {
    const doc = readFileSync(DOC_PATH, 'utf8');
    expect(doc).toContain(decision.routedUrl);
    expect(doc).toContain(alternative.whyNotChosen);
    expect(doc).toContain(EXAMPLE_URL);
    expect(doc).toContain(signalOf(winnerSignals, 'fx').label);
  });
});
