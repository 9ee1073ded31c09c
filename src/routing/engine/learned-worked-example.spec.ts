// Recomputes the learned-routing worked example of docs/routing.md (section 10) with the engine:
// every number of the doc's table is checked against the decision, so neither can drift.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decideRoute } from './decide-route';
import { fxSnapshot, NOW_MS, seedProfile } from './engine.fixtures';
import { routeKey } from './learned-epc';
import type {
  LinkRoutingInput,
  RoutingDecision,
  TraceRoute,
  VisitorContext,
} from './routing-types';

const DOC_PATH = join(__dirname, '../../../docs/routing.md');
const EXAMPLE_URL = 'https://www.adidas.com/us/ultraboost-light-running-shoes/HQ6351.html';

const VISITOR: VisitorContext = {
  country: 'US',
  device: 'desktop',
  os: null,
  isInAppBrowser: false,
};

function exampleInput(): LinkRoutingInput {
  return {
    originalUrl: EXAMPLE_URL,
    merchant: seedProfile('adidas'),
    preset: 'default',
    passthrough: false,
    probes: { deepLinkStatus: 'validated', healthStatus: 'ok' },
    networkAccounts: { cj: 'cr7', impact: 'cr7im' },
    learning: {
      priorClicks: 200,
      explorationShare: 0.05,
      observed: {
        [routeKey('adidas', 'US', 'cj')]: { clicks: 1_800, commissionUsd: 54 },
        [routeKey('adidas', 'US', 'impact')]: { clicks: 150, commissionUsd: 24 },
      },
    },
  };
}

function decideExample(explorationLane: number | null = null): RoutingDecision {
  return decideRoute(
    exampleInput(),
    VISITOR,
    fxSnapshot({ source: 'primary', isStale: false }),
    NOW_MS,
    explorationLane,
  );
}

function readDocTable(): Map<string, string> {
  const doc = readFileSync(DOC_PATH, 'utf8');
  const start = doc.indexOf('<!-- learned-example:start -->');
  const end = doc.indexOf('<!-- learned-example:end -->');
  if (start === -1 || end === -1)
    throw new Error('docs/routing.md lost its learned-example markers');
  const rows = new Map<string, string>();
  for (const match of doc.slice(start, end).matchAll(/^\|\s*`([^`]+)`\s*\|\s*([^|]+?)\s*\|/gm)) {
    rows.set(match[1], match[2].replace(/,/g, ''));
  }
  return rows;
}

describe('learned worked example (docs/routing.md)', () => {
  const decision = decideExample();
  const { winner, alternatives, learning } = decision.trace;
  const cj = alternatives.find(
    (route) => route.networkId === 'cj',
  ) as (typeof alternatives)[number];
  const impact = winner as TraceRoute;
  const multiplierProduct = impact.normalizedEpcUsd / (impact.learning?.blendedEpcUsd ?? NaN);

  const engineValues: Record<string, number> = {
    k: learning?.priorClicks ?? NaN,
    ...Object.fromEntries(
      [cj, impact].flatMap((route) => [
        [`${route.networkId}.hint`, route.learning?.hintEpcUsd ?? NaN],
        [`${route.networkId}.clicks`, route.learning?.clicks ?? NaN],
        [`${route.networkId}.commission`, route.learning?.commissionUsd ?? NaN],
        [
          `${route.networkId}.realised`,
          (route.learning?.commissionUsd ?? 0) / (route.learning?.clicks ?? NaN),
        ],
        [`${route.networkId}.blended`, route.learning?.blendedEpcUsd ?? NaN],
        [`${route.networkId}.weight`, route.learning?.weight ?? NaN],
        [`${route.networkId}.finalScore`, route.routeScore],
      ]),
    ),
    multiplier_product: multiplierProduct,
    confidence_factor: decision.confidenceFactor,
  };

  it('should route to impact, the hint second but the blend first', () => {
    expect(decision).toMatchObject({ outcome: 'routed', reason: 'best_epc', networkId: 'impact' });
    expect(learning).toEqual({
      mode: 'learned',
      priorClicks: 200,
      explorationShare: 0.05,
      isExploration: false,
    });
    expect(cj.whyNotChosen).toMatch(/^scored 0\.\d{4} USD below the winner$/);
  });

  it('should print every number of the doc table as the engine computes it', () => {
    const table = readDocTable();
    expect([...table.keys()].sort()).toEqual(Object.keys(engineValues).sort());
    for (const [key, shown] of table) {
      const decimals = shown.includes('.') ? shown.split('.')[1].length : 0;
      const tolerance = 0.5 * 10 ** -Math.max(decimals, 4) + 1e-12;
      expect({ key, gap: Math.abs(Number(shown) - engineValues[key]) <= tolerance }).toEqual({
        key,
        gap: true,
      });
    }
  });

  it("should quote the winner's epc_base label and cj's whyNotChosen verbatim in the doc", () => {
    const doc = readFileSync(DOC_PATH, 'utf8');
    const epcBase = decision.trace.signals.find((signal) => signal.name === 'epc_base');
    expect(doc).toContain(epcBase?.label);
    expect(doc).toContain(cj.whyNotChosen);
  });

  it('should explore cj for a visitor in an exploration lane', () => {
    const explored = decideExample(7);
    expect(explored.networkId).toBe('cj');
    expect(explored.trace.learning?.isExploration).toBe(true);
    expect(explored.trace.alternatives[0].whyNotChosen).toMatch(
      /^this visitor explores another route today; this route scored 0\.\d{4} USD above it$/,
    );
  });
});
