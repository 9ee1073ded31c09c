import * as fc from 'fast-check';
import type { LinkDestination } from '../links/link-destination';
import type { StoredRedirectRule } from '../links/redirect-rule';
import {
  isWithinDailyWindow,
  matchingRuleIndex,
  primaryLanguageOf,
  ruleDeviceOf,
  type RuleVisitor,
} from './redirect-rules';

const DESTINATION: LinkDestination = {
  originalUrl: 'https://example.org/',
  canonicalUrl: '',
  merchantId: null,
  stored: {
    routedUrl: 'https://example.org/',
    region: null,
    networkId: null,
    outcome: 'passthrough',
    normalizedEpcUsd: 0,
    confidenceFactor: 0,
    deepLinkUsed: false,
  },
};

const rule = (conditions: Omit<StoredRedirectRule, 'destination'>): StoredRedirectRule => ({
  ...conditions,
  destination: DESTINATION,
});

const NOON = Date.parse('2026-12-24T12:00:00Z');

const VISITOR: RuleVisitor = {
  country: 'DE',
  device: 'ios',
  language: 'de',
  query: 'src=newsletter&x=1',
  nowMs: NOON,
};

describe(matchingRuleIndex.name, () => {
  it('should answer null when there is no rule or none matches', () => {
    expect(matchingRuleIndex([], VISITOR)).toBeNull();
    expect(matchingRuleIndex([rule({ countries: ['FR'] })], VISITOR)).toBeNull();
  });

  it.each<[string, Omit<StoredRedirectRule, 'destination'>, boolean]>([
    ['country in list', { countries: ['AT', 'DE'] }, true],
    ['country not in list', { countries: ['AT'] }, false],
    ['device in list', { devices: ['android', 'ios'] }, true],
    ['device not in list', { devices: ['desktop'] }, false],
    ['language in list', { languages: ['de'] }, true],
    ['language not in list', { languages: ['en'] }, false],
    ['after startsAt', { startsAtMs: NOON - 1 }, true],
    ['at startsAt (inclusive)', { startsAtMs: NOON }, true],
    ['before startsAt', { startsAtMs: NOON + 1 }, false],
    ['before endsAt', { endsAtMs: NOON + 1 }, true],
    ['at endsAt (exclusive)', { endsAtMs: NOON }, false],
    ['inside the daily window', { fromMinute: 11 * 60, toMinute: 13 * 60 }, true],
    ['outside the daily window', { fromMinute: 13 * 60, toMinute: 14 * 60 }, false],
    ['inside a window over midnight', { fromMinute: 11 * 60, toMinute: 2 * 60 }, true],
    ['outside a window over midnight', { fromMinute: 22 * 60, toMinute: 2 * 60 }, false],
    ['query value equal', { query: { param: 'src', value: 'newsletter' } }, true],
    ['query value different', { query: { param: 'src', value: 'ads' } }, false],
    ['query parameter missing', { query: { param: 'utm', value: '' } }, false],
    ['every condition holding', { countries: ['DE'], devices: ['ios'], languages: ['de'] }, true],
    [
      'one condition failing among holding ones',
      { countries: ['DE'], devices: ['android'] },
      false,
    ],
  ])('should match when %s: %j', (_name, conditions, isMatch) => {
    expect(matchingRuleIndex([rule(conditions)], VISITOR)).toBe(isMatch ? 0 : null);
  });

  it('should not match a condition on what is unknown of the visitor', () => {
    const unknown: RuleVisitor = { ...VISITOR, country: null, device: null, language: null };
    expect(matchingRuleIndex([rule({ countries: ['DE'] })], unknown)).toBeNull();
    expect(matchingRuleIndex([rule({ devices: ['desktop'] })], unknown)).toBeNull();
    expect(matchingRuleIndex([rule({ languages: ['de'] })], unknown)).toBeNull();
  });

  it('should answer the first matching rule whatever matches after it', () => {
    const conditionArb = fc.record(
      {
        countries: fc.subarray(['DE', 'FR', 'US'], { minLength: 1 }),
        devices: fc.subarray(['ios' as const, 'android' as const, 'desktop' as const], {
          minLength: 1,
        }),
        languages: fc.subarray(['de', 'en'], { minLength: 1 }),
      },
      { requiredKeys: [] },
    );
    const visitorArb = fc.record({
      country: fc.constantFrom('DE', 'FR', 'US', null),
      device: fc.constantFrom('ios' as const, 'android' as const, 'desktop' as const, null),
      language: fc.constantFrom('de', 'en', null),
      query: fc.constant(''),
      nowMs: fc.constant(NOON),
    });
    fc.assert(
      fc.property(fc.array(conditionArb, { maxLength: 20 }), visitorArb, (conditions, visitor) => {
        const rules = conditions.map(rule);
        const index = matchingRuleIndex(rules, visitor);
        const matches = rules.map((one) => matchingRuleIndex([one], visitor) === 0);
        // The first rule that matches alone, and none before it.
        expect(index).toBe(matches.includes(true) ? matches.indexOf(true) : null);
        // Rules after the first match never change it.
        expect(matchingRuleIndex([...rules, rule({})], visitor)).toBe(index ?? rules.length);
      }),
    );
  });
});

describe(isWithinDailyWindow.name, () => {
  it('should hold for exactly to - from minutes of the day, wrapping at midnight', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1439 }),
        fc.integer({ min: 0, max: 1439 }),
        (from, to) => {
          fc.pre(from !== to);
          let minutes = 0;
          for (let minute = 0; minute < 1440; minute++) {
            if (isWithinDailyWindow(minute, from, to)) minutes++;
          }
          expect(minutes).toBe((to - from + 1440) % 1440);
          expect(isWithinDailyWindow(from, from, to)).toBe(true);
          expect(isWithinDailyWindow(to, from, to)).toBe(false);
        },
      ),
    );
  });
});

describe(ruleDeviceOf.name, () => {
  it.each([
    [{ device: 'mobile' as const, os: 'ios' as const }, 'ios'],
    [{ device: 'tablet' as const, os: 'android' as const }, 'android'],
    [{ device: 'desktop' as const, os: null }, 'desktop'],
    [{ device: 'mobile' as const, os: null }, null],
    [{ device: null, os: null }, null],
  ])('should read %j as %s', (userAgent, device) => {
    expect(ruleDeviceOf(userAgent)).toBe(device);
  });
});

describe(primaryLanguageOf.name, () => {
  it.each([
    ['de-AT,de;q=0.9,en;q=0.5', 'de'],
    ['EN-us', 'en'],
    ['  fr ; q=0.8, de', 'fr'],
    ['*', null],
    ['', null],
    [undefined, null],
    ['x-klingon', null],
  ])('should read %j as %s', (header, language) => {
    expect(primaryLanguageOf(header)).toBe(language);
  });
});
