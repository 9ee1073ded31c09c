import * as fc from 'fast-check';
import { AppError } from '../common/errors/app-error';
import type { RoutingDecision } from '../routing/engine/routing-types';
import type { RoutingContext } from '../routing/routing.service';
import type { RedirectRuleDto } from './dto/redirect-rule.dto';
import type { DestinationRouter } from './link-destination';
import { RULE_DEVICES, toRuleView } from './redirect-rule';
import { toStoredRules } from './redirect-rule-writer';

const CONTEXT = { fx: {}, accounts: {}, nowMs: 0 } as unknown as RoutingContext;

/** Every URL is passthrough: what the rules store besides the route is under test here. */
const router: DestinationRouter & { calls: number } = {
  calls: 0,
  decideWith(_context, question) {
    router.calls++;
    const decision = {
      outcome: 'passthrough',
      merchantId: null,
      region: null,
      networkId: null,
      routedUrl: question.originalUrl,
      canonicalUrl: '',
      normalizedEpcUsd: 0,
      confidenceFactor: 0,
      deepLinkUsed: false,
    } as Partial<RoutingDecision> as RoutingDecision;
    return { decision, merchant: null };
  },
};

const store = (rules: RedirectRuleDto[]) => toStoredRules(router, CONTEXT, rules, {});

const refusalOf = (rules: RedirectRuleDto[]): Record<string, string[]> | undefined => {
  try {
    store(rules);
  } catch (error) {
    if (error instanceof AppError) return error.details;
    throw error;
  }
  return undefined;
};

const instantArb = fc
  .integer({ min: Date.parse('2020-01-01T00:00:00Z'), max: Date.parse('2040-01-01T00:00:00Z') })
  .map((ms) => new Date(ms).toISOString());
const timeArb = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);

const ruleArb: fc.Arbitrary<RedirectRuleDto> = fc
  .record(
    {
      countries: fc.uniqueArray(fc.constantFrom('DE', 'AT', 'US'), { minLength: 1 }),
      devices: fc.uniqueArray(fc.constantFrom(...RULE_DEVICES), { minLength: 1 }),
      languages: fc.uniqueArray(fc.constantFrom('de', 'en', 'fil'), { minLength: 1 }),
      startsAt: instantArb,
      query: fc.record({ param: fc.constantFrom('src', 'ref'), value: fc.string() }),
    },
    { requiredKeys: [] },
  )
  .filter((conditions) => Object.keys(conditions).length > 0)
  .map((conditions) => ({ destinationUrl: 'https://shop.example.com/p', ...conditions }));

describe(toStoredRules.name, () => {
  it('should store nothing for no rules or an empty list', () => {
    expect(store([])).toBeNull();
    expect(toStoredRules(router, CONTEXT, null, {})).toBeNull();
    expect(toStoredRules(router, CONTEXT, undefined, {})).toBeNull();
  });

  it('should show each rule as it was asked, with its routed destination', () => {
    fc.assert(
      fc.property(fc.array(ruleArb, { minLength: 1, maxLength: 20 }), (rules) => {
        const views = (store(rules) ?? []).map(toRuleView);
        expect(views).toEqual(
          rules.map((rule) => ({
            ...rule,
            canonicalUrl: '',
            routedUrl: rule.destinationUrl,
            merchantId: null,
            networkId: null,
            region: null,
          })),
        );
      }),
    );
  });

  it('should keep a daily window over midnight and show both times as asked', () => {
    const fromTo = fc.tuple(timeArb, timeArb).filter(([from, to]) => from !== to);
    fc.assert(
      fc.property(fromTo, ([fromTime, toTime]) => {
        const [view] = (
          store([{ destinationUrl: 'https://a.example/', fromTime, toTime }]) ?? []
        ).map(toRuleView);
        expect(view).toMatchObject({ fromTime, toTime });
      }),
    );
  });

  it('should lower-case languages', () => {
    const [stored] =
      store([{ destinationUrl: 'https://a.example/', languages: ['DE', 'de', 'Fr'] }]) ?? [];
    expect(stored.languages).toEqual(['de', 'fr']);
  });

  it.each<[string, RedirectRuleDto, string]>([
    ['no condition', { destinationUrl: 'https://a.example/' }, 'rules.1'],
    [
      'half a daily window',
      { destinationUrl: 'https://a.example/', toTime: '10:00' },
      'rules.1.fromTime',
    ],
    [
      'an empty daily window',
      { destinationUrl: 'https://a.example/', fromTime: '10:00', toTime: '10:00' },
      'rules.1.toTime',
    ],
    [
      'an end before the start',
      {
        destinationUrl: 'https://a.example/',
        startsAt: '2030-01-01T00:00:00Z',
        endsAt: '2030-01-01T00:00:00Z',
      },
      'rules.1.endsAt',
    ],
    [
      'an impossible date',
      { destinationUrl: 'https://a.example/', startsAt: '2030-02-31T25:00:00Z' },
      'rules.1.startsAt',
    ],
  ])('should refuse %s, naming the field, and route nothing', (_name, bad, field) => {
    const before = router.calls;
    const details = refusalOf([{ destinationUrl: 'https://a.example/', countries: ['DE'] }, bad]);
    expect(Object.keys(details ?? {})).toEqual([field]);
    expect(router.calls).toBe(before);
  });
});
