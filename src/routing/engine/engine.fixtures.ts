// Test data for the engine's specs: seeded profiles, hand-built ones, an FX snapshot and
// default link and visitor inputs. Not used by production code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CurrencyCode, FxSnapshot } from '../../fx/math/fx-snapshot';
import {
  NETWORK_IDS,
  type MerchantProfile,
  type MerchantRegion,
  type NetworkId,
} from '../../merchants/kb/merchant-profile';
import type { LinkRoutingInput, VisitorContext } from './routing-types';

const SEEDS_DIR = join(__dirname, '../../../seeds/merchants');

/** A seeded profile, read fresh so a test may change its copy. */
export function seedProfile(merchantId: string): MerchantProfile {
  return JSON.parse(readFileSync(join(SEEDS_DIR, `${merchantId}.json`), 'utf8')) as MerchantProfile;
}

/** 2026-12-01T12:00:00Z: the decision time of every test that does not choose its own. */
export const NOW_MS = Date.parse('2026-12-01T12:00:00.000Z');

/** A creator with an active account on each of the 12 networks. */
export const ALL_NETWORK_ACCOUNTS: Readonly<Record<NetworkId, string>> = Object.fromEntries(
  NETWORK_IDS.map((networkId) => [networkId, `acct-${networkId}`]),
) as Record<NetworkId, string>;

/** Units of currency per 1 USD, round figures for readable expectations. */
export const FRESH_RATES: Readonly<Record<CurrencyCode, number>> = {
  USD: 1,
  GBP: 0.8,
  EUR: 0.92,
  INR: 83.2,
  CAD: 1.36,
  AUD: 1.52,
  JPY: 150,
  SGD: 1.34,
  MYR: 4.7,
  THB: 36,
  IDR: 15800,
  PHP: 56,
  AED: 3.6725,
  SAR: 3.75,
  EGP: 48,
  NGN: 1500,
  ZAR: 18.5,
  BRL: 5,
  MXN: 17,
  ARS: 900,
  KRW: 1350,
  TWD: 32,
  VND: 25000,
};

export function fxSnapshot(overrides: Partial<FxSnapshot> = {}): FxSnapshot {
  return {
    base: 'USD',
    rates: { ...FRESH_RATES },
    timestamp: '2026-12-01T00:05:00.000Z',
    source: 'primary',
    isStale: false,
    ...overrides,
  };
}

export function visitorContext(overrides: Partial<VisitorContext> = {}): VisitorContext {
  return { country: 'US', device: 'desktop', os: null, isInAppBrowser: false, ...overrides };
}

export function linkInput(
  merchant: MerchantProfile | null,
  originalUrl: string,
  overrides: Partial<LinkRoutingInput> = {},
): LinkRoutingInput {
  return {
    originalUrl,
    merchant,
    preset: 'default',
    passthrough: false,
    probes: { deepLinkStatus: 'validated', healthStatus: 'ok' },
    networkAccounts: { ...ALL_NETWORK_ACCOUNTS },
    ...overrides,
  };
}

/** A plain storefront: neutral multipliers, USD, hint 0.05 on awin and cj. */
export function buildRegion(
  storefront: string,
  overrides: Partial<MerchantRegion> = {},
): MerchantRegion {
  return {
    storefront,
    hostnames: [storefront],
    baseCurrency: 'USD',
    epcHints: { awin: 0.05, cj: 0.05 },
    trustScore: 80,
    preferredNetworks: ['awin', 'cj'],
    deepLinkSupported: true,
    deepLinkMultiplier: 0.05,
    deviceBiases: { ios: 0.04, android: 0.02, desktop: 0 },
    availabilityFlags: { globalAvailability: false, stockAware: false, shipsToCountries: [] },
    categoryMultipliers: {},
    refundRateEstimate: 0.1,
    codFactor: 1,
    passthroughRequired: false,
    ...overrides,
  };
}

/** A network merchant "testshop" with the given regions (keyed like a real profile). */
export function buildProfile(
  regions: Record<string, MerchantRegion>,
  overrides: Partial<MerchantProfile> = {},
): MerchantProfile {
  return {
    merchantId: 'testshop',
    displayName: 'Test Shop',
    description: 'Hand-built profile for engine tests.',
    programType: 'network',
    programStatus: 'open',
    categories: ['fashion'],
    domains: Object.values(regions).flatMap((region) => region.hostnames),
    supportedNetworks: ['awin', 'cj'],
    merchantCapabilities: {
      deepLinking: true,
      appIndexing: false,
      utmPreservation: true,
      multiNetworkRouting: true,
    },
    regionDefaults: { baseCurrency: 'USD', epcBaseUsd: 0.05, trustScore: 80 },
    bannedMarkets: [],
    regions,
    canonicalization: { pathRules: [], keepParams: null, dropParams: ['utm_*'], examples: [] },
    meta: {
      version: '2026-12-01-01',
      lastUpdated: '2026-12-01T00:00:00.000Z',
      dataConfidenceScore: 80,
      changelogNotes: 'test',
    },
    ...overrides,
  };
}
