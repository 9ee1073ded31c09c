import {
  ALL_NETWORK_ACCOUNTS,
  buildProfile,
  buildRegion,
  fxSnapshot,
  FRESH_RATES,
  seedProfile,
} from './engine.fixtures';
import { routableNetworks } from '../../merchants/kb/routable-networks';
import { isNetworkAvailable, listCandidates } from './list-candidates';

const adidas = seedProfile('adidas');
const amazon = seedProfile('amazon');

describe(routableNetworks.name, () => {
  it.each([
    { merchantId: 'amazon', expected: ['amazon_associates'] },
    { merchantId: 'flipkart', expected: ['flipkart_affiliate'] },
    { merchantId: 'myntra', expected: ['cuelinks', 'involve_asia'] },
    { merchantId: 'adidas', expected: ['awin', 'cj', 'impact', 'cuelinks'] },
  ])('should route $merchantId through $expected', ({ merchantId, expected }) => {
    expect(routableNetworks(seedProfile(merchantId))).toEqual(expected);
  });

  it('should give a direct merchant without a known in-house programme no network', () => {
    expect(
      routableNetworks(buildProfile({}, { merchantId: 'nobody', programType: 'direct' })),
    ).toEqual([]);
  });
});

describe(isNetworkAvailable.name, () => {
  it.each([
    { merchant: adidas, region: 'US', networkId: 'cj', expected: true },
    { merchant: adidas, region: 'US', networkId: 'awin', expected: false },
    { merchant: adidas, region: 'IN', networkId: 'cuelinks', expected: true },
    { merchant: adidas, region: 'US', networkId: 'partnerize', expected: false },
    { merchant: adidas, region: 'KE', networkId: 'cj', expected: false },
    { merchant: adidas, region: '__proto__', networkId: 'cj', expected: false },
    { merchant: amazon, region: 'IN', networkId: 'amazon_associates', expected: true },
    { merchant: amazon, region: 'IN', networkId: 'cuelinks', expected: false },
  ] as const)(
    'should be $expected for $networkId in $merchant.merchantId $region',
    ({ merchant, region, networkId, expected }) => {
      expect(isNetworkAvailable(merchant, region, networkId)).toBe(expected);
    },
  );
});

describe(listCandidates.name, () => {
  it('should keep only networks with a positive hint and exclude the rest with a reason', () => {
    const list = listCandidates(adidas, ['US'], 1, ALL_NETWORK_ACCOUNTS, fxSnapshot());
    expect(list.candidates.map((c) => c.networkId)).toEqual(['cj', 'impact']);
    expect(list.excluded).toEqual([
      { region: 'US', networkId: 'awin', reason: 'EPC hint is 0 in US' },
      { region: 'US', networkId: 'cuelinks', reason: 'EPC hint is 0 in US' },
    ]);
    expect(list.failure).toBeNull();
  });

  it('should exclude a network the creator has no active account on', () => {
    const list = listCandidates(adidas, ['US'], 1, { impact: 'imp-1' }, fxSnapshot());
    expect(list.candidates.map((c) => c.networkId)).toEqual(['impact']);
    expect(list.excluded).toContainEqual({
      region: 'US',
      networkId: 'cj',
      reason: 'no active network account for cj',
    });
  });

  it('should treat an empty affiliate id as no account', () => {
    const list = listCandidates(adidas, ['IN'], 1, { cuelinks: '' }, fxSnapshot());
    expect(list.failure).toBe('no_active_network_account');
  });

  it('should fail with no_active_network_account when accounts were the only obstacle', () => {
    const list = listCandidates(adidas, ['IN'], 1, {}, fxSnapshot());
    expect(list).toMatchObject({ candidates: [], failure: 'no_active_network_account' });
  });

  it('should fail with no_candidates when every hint is 0', () => {
    const closedHints = buildProfile({
      US: buildRegion('shop.example.com', { epcHints: { awin: 0, cj: 0 } }),
    });
    const list = listCandidates(closedHints, ['US'], 1, ALL_NETWORK_ACCOUNTS, fxSnapshot());
    expect(list.failure).toBe('no_candidates');
  });

  it('should say when a supported network has no hint at all', () => {
    const partial = buildProfile({
      US: buildRegion('shop.example.com', { epcHints: { awin: 0.05 } }),
    });
    const list = listCandidates(partial, ['US'], 1, ALL_NETWORK_ACCOUNTS, fxSnapshot());
    expect(list.excluded).toEqual([{ region: 'US', networkId: 'cj', reason: 'no EPC hint in US' }]);
  });

  it('should exclude a candidate whose currency has no FX rate', () => {
    const rates = { ...FRESH_RATES, INR: 0 };
    const list = listCandidates(adidas, ['IN'], 1, ALL_NETWORK_ACCOUNTS, fxSnapshot({ rates }));
    expect(list.failure).toBe('no_candidates');
    expect(list.excluded).toContainEqual({
      region: 'IN',
      networkId: 'cuelinks',
      reason: 'no FX rate for INR',
    });
  });

  it('should carry the hint, rate, tier and affiliate id of each candidate', () => {
    const [candidate] = listCandidates(
      amazon,
      ['IN'],
      2,
      ALL_NETWORK_ACCOUNTS,
      fxSnapshot(),
    ).candidates;
    expect(candidate).toMatchObject({
      regionKey: 'IN',
      tier: 2,
      networkId: 'amazon_associates',
      affiliateId: 'acct-amazon_associates',
      epcHint: 4.2,
      fxRate: 83.2,
    });
  });
});
