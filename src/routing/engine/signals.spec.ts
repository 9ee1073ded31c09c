import type { DeviceBiases } from '../../merchants/kb/merchant-profile';
import { buildProfile, buildRegion, fxSnapshot, visitorContext } from './engine.fixtures';
import type { Candidate } from './list-candidates';
import { PRESET_WEIGHTS } from './presets';
import type {
  DeepLinkStatus,
  DeviceType,
  HealthStatus,
  MobileOs,
  RegionTier,
} from './routing-types';
import { SIGNAL_NAMES } from './routing-types';
import {
  computeSignals,
  readAvailability,
  readCategory,
  readCod,
  readDeepLink,
  readDevice,
  readEpcBase,
  readFx,
  readHealth,
  readNetTrust,
  readRefund,
  readRegionMatch,
  readUaPenalty,
  readUtm,
} from './signals';

const BIASES: DeviceBiases = { ios: 0.08, android: 0.04, desktop: -0.02 };

function candidateFor(overrides: Partial<Candidate> = {}): Candidate {
  return {
    regionKey: 'IN',
    region: buildRegion('shop.example.in', { baseCurrency: 'INR' }),
    tier: 1,
    networkId: 'cuelinks',
    affiliateId: 'acct',
    epcHint: 4.16,
    fxRate: 83.2,
    ...overrides,
  };
}

describe('signals', () => {
  describe(readEpcBase.name, () => {
    it.each([
      { epcHint: 4.16, fxRate: 83.2, expected: 0.05 },
      { epcHint: 0.05, fxRate: 1, expected: 0.05 },
      { epcHint: 0.04, fxRate: 0.8, expected: 0.05 },
      { epcHint: 7.5, fxRate: 150, expected: 0.05 },
    ])(
      'should convert $epcHint at $fxRate per USD to $expected USD',
      ({ epcHint, fxRate, expected }) => {
        expect(readEpcBase(candidateFor({ epcHint, fxRate })).value).toBeCloseTo(expected, 12);
      },
    );

    it('should name the hint, currency, network and region in its label', () => {
      expect(readEpcBase(candidateFor()).label).toBe(
        '4.16 INR per click on cuelinks in IN = 0.0500 USD',
      );
    });
  });

  describe(readFx.name, () => {
    it.each([
      {
        rate: 83.2,
        source: 'primary',
        isStale: false,
        label: '1 USD = 83.20 INR (primary, fresh)',
      },
      {
        rate: 83.2,
        source: 'fallback',
        isStale: true,
        label: '1 USD = 83.20 INR (fallback, stale)',
      },
      {
        rate: 0.79,
        source: 'snapshot',
        isStale: false,
        label: '1 USD = 0.7900 INR (snapshot, fresh)',
      },
    ] as const)('should show the rate used: $label', ({ rate, source, isStale, label }) => {
      const reading = readFx('INR', rate, fxSnapshot({ source, isStale }));
      expect(reading.value).toBe(rate);
      expect(reading.label).toBe(`${label}; converts epc_base, not a multiplier`);
    });
  });

  describe(readDevice.name, () => {
    it.each<{ device: DeviceType; os: MobileOs | null; expected: number }>([
      { device: 'desktop', os: null, expected: 0.98 },
      { device: 'desktop', os: 'ios', expected: 0.98 },
      { device: 'mobile', os: 'ios', expected: 1.08 },
      { device: 'mobile', os: 'android', expected: 1.04 },
      { device: 'tablet', os: 'ios', expected: 1.08 },
      { device: 'mobile', os: null, expected: 1.06 },
      { device: 'tablet', os: null, expected: 1.06 },
    ])('should be $expected for $device with os $os', ({ device, os, expected }) => {
      expect(readDevice(BIASES, device, os).value).toBeCloseTo(expected, 12);
    });

    it('should say when the mean of both OS biases was used', () => {
      expect(readDevice(BIASES, 'mobile', null).label).toBe(
        'mobile, OS unknown: mean of ios +0.08 and android +0.04',
      );
    });
  });

  describe(readDeepLink.name, () => {
    it.each<{ supported: boolean; status: DeepLinkStatus; expected: number }>([
      { supported: true, status: 'validated', expected: 1.07 },
      { supported: true, status: 'unchecked', expected: 1 },
      { supported: true, status: 'invalid', expected: 1 },
      { supported: true, status: 'ttl_expired', expected: 1 },
      { supported: false, status: 'validated', expected: 1 },
    ])(
      'should be $expected when supported is $supported and status $status',
      ({ supported, status, expected }) => {
        const region = buildRegion('x.example', {
          deepLinkSupported: supported,
          deepLinkMultiplier: 0.07,
        });
        expect(readDeepLink(region, status).value).toBeCloseTo(expected, 12);
      },
    );
  });

  describe(readRegionMatch.name, () => {
    it.each<{ tier: RegionTier; expected: number }>([
      { tier: 1, expected: 1 },
      { tier: 2, expected: 0.97 },
      { tier: 3, expected: 0.93 },
    ])('should be $expected for tier $tier', ({ tier, expected }) => {
      expect(readRegionMatch(tier, 'US', 'NZ').value).toBe(expected);
    });
  });

  describe(readHealth.name, () => {
    it.each<{ status: HealthStatus; expected: number }>([
      { status: 'ok', expected: 1 },
      { status: 'unknown', expected: 1 },
      { status: 'warning', expected: 0.95 },
      { status: 'critical', expected: 0.8 },
    ])('should be $expected when health is $status', ({ status, expected }) => {
      expect(readHealth(status).value).toBe(expected);
    });
  });

  describe(readRefund.name, () => {
    it.each([
      { rate: 0, expected: 1 },
      { rate: 0.08, expected: 0.92 },
      { rate: 0.25, expected: 0.75 },
      { rate: 1, expected: 0 },
    ])('should be $expected for a refund rate of $rate', ({ rate, expected }) => {
      expect(readRefund(rate).value).toBeCloseTo(expected, 12);
    });
  });

  describe(readNetTrust.name, () => {
    it.each([
      { trust: 0, expected: 0.85 },
      { trust: 50, expected: 0.925 },
      { trust: 83, expected: 0.9745 },
      { trust: 100, expected: 1 },
    ])('should be $expected for trust $trust', ({ trust, expected }) => {
      expect(readNetTrust(trust).value).toBeCloseTo(expected, 12);
    });
  });

  describe(readCategory.name, () => {
    const region = buildRegion('x.example', { categoryMultipliers: { fashion: 1.3, books: 0.9 } });

    it.each([
      { category: 'fashion', expected: 1.3 },
      { category: 'books', expected: 0.9 },
      { category: 'toys', expected: 1 },
      { category: undefined, expected: 1 },
    ] as const)('should be $expected for category $category', ({ category, expected }) => {
      expect(readCategory(region, category).value).toBe(expected);
    });
  });

  describe(readCod.name, () => {
    it.each([1, 0.85, 0.8])('should pass the COD factor %p through', (codFactor) => {
      expect(readCod(codFactor).value).toBe(codFactor);
    });
  });

  describe(readUaPenalty.name, () => {
    it.each([
      { inApp: true, expected: 0.95 },
      { inApp: false, expected: 1 },
    ])('should be $expected when in-app is $inApp', ({ inApp, expected }) => {
      expect(readUaPenalty(inApp).value).toBe(expected);
    });
  });

  describe(readUtm.name, () => {
    it.each([
      { preserved: true, expected: 1 },
      { preserved: false, expected: 0.98 },
    ])('should be $expected when UTM preservation is $preserved', ({ preserved, expected }) => {
      expect(readUtm(preserved).value).toBe(expected);
    });
  });

  describe(readAvailability.name, () => {
    it.each([
      { shipsTo: null, market: 'NZ', expected: 1 },
      { shipsTo: ['US', 'NZ'], market: 'NZ', expected: 1 },
      { shipsTo: ['US'], market: 'NZ', expected: 0.9 },
      { shipsTo: [], market: 'US', expected: 0.9 },
    ])(
      'should be $expected for $market when shipping to $shipsTo',
      ({ shipsTo, market, expected }) => {
        expect(readAvailability(shipsTo, market).value).toBe(expected);
      },
    );
  });

  describe(computeSignals.name, () => {
    const merchant = buildProfile({ IN: buildRegion('shop.example.in') });
    const context = {
      merchant,
      candidate: candidateFor(),
      market: 'IN',
      category: undefined,
      deepLinkStatus: 'validated' as const,
      healthStatus: 'ok' as const,
      visitor: visitorContext({ country: 'IN' }),
      fx: fxSnapshot(),
    };

    it('should list the 16 signals in trace order with their sources', () => {
      const signals = computeSignals({ ...context, weights: PRESET_WEIGHTS.default });
      expect(signals.map((signal) => signal.name)).toEqual([...SIGNAL_NAMES]);
      expect(signals.filter((s) => s.source === 'creator').map((s) => s.name)).toEqual(['deal']);
      expect(signals.every((signal) => signal.label.length > 0)).toBe(true);
    });

    it.each(['trend', 'offer', 'deal'] as const)('should keep %s neutral at 1', (name) => {
      const signals = computeSignals({ ...context, weights: PRESET_WEIGHTS.default });
      expect(signals.find((signal) => signal.name === name)?.value).toBe(1);
    });

    it.each(['default', 'link_in_bio', 'long_form'] as const)(
      'should carry the %s preset weights, fx at 0',
      (preset) => {
        const signals = computeSignals({ ...context, weights: PRESET_WEIGHTS[preset] });
        for (const signal of signals) {
          expect(signal.weight).toBe(PRESET_WEIGHTS[preset][signal.name]);
        }
        expect(signals.find((signal) => signal.name === 'fx')?.weight).toBe(0);
      },
    );
  });
});
