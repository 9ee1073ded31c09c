import { buildProfile, buildRegion, seedProfile } from './engine.fixtures';
import { resolveMarket, selectRegions, tierOfRegion } from './select-regions';

const amazon = seedProfile('amazon');
const asos = seedProfile('asos');
const apple = seedProfile('apple');

// Storefronts: the visitor's own (DE), one shipping to AT, one shipping everywhere, GLOBAL.
const shop = buildProfile({
  DE: buildRegion('shop.example.de', {
    availabilityFlags: {
      globalAvailability: false,
      stockAware: false,
      shipsToCountries: ['DE', 'AT'],
    },
  }),
  US: buildRegion('shop.example.com', {
    availabilityFlags: { globalAvailability: true, stockAware: false, shipsToCountries: null },
  }),
  JP: buildRegion('shop.example.jp', {
    availabilityFlags: { globalAvailability: false, stockAware: false, shipsToCountries: ['JP'] },
  }),
  GLOBAL: buildRegion('shop.example', {
    availabilityFlags: { globalAvailability: true, stockAware: false, shipsToCountries: null },
  }),
});

describe(resolveMarket.name, () => {
  it.each([
    { country: 'IN', source: 'US', expected: 'IN' },
    { country: 'in', source: 'US', expected: 'IN' },
    { country: null, source: 'US', expected: 'US' },
    { country: null, source: 'GLOBAL', expected: 'GLOBAL' },
    { country: '', source: 'GB', expected: 'GB' },
    { country: null, source: null, expected: null },
  ])(
    'should be $expected for country $country and source $source',
    ({ country, source, expected }) => {
      expect(resolveMarket(country, source)).toBe(expected);
    },
  );
});

describe(tierOfRegion.name, () => {
  it.each([
    { region: 'DE', market: 'DE', expected: 1 },
    { region: 'DE', market: 'AT', expected: 2 },
    { region: 'US', market: 'AT', expected: 2 },
    { region: 'JP', market: 'AT', expected: null },
    { region: 'GLOBAL', market: 'AT', expected: 3 },
    { region: 'GLOBAL', market: 'GLOBAL', expected: 1 },
  ])('should put $region in tier $expected for $market', ({ region, market, expected }) => {
    expect(tierOfRegion(shop, region, market)).toBe(expected);
  });
});

describe(selectRegions.name, () => {
  it('should choose only the region keyed by the market when it exists', () => {
    const selection = selectRegions(shop, 'DE', 'DE');
    expect(selection).toMatchObject({ tier: 1, regionKeys: ['DE'], failure: null });
    expect(selection.excluded).toEqual([
      {
        region: 'US',
        networkId: null,
        reason: 'region US ships to DE, but DE has its own storefront',
      },
      { region: 'JP', networkId: null, reason: 'region JP does not serve DE' },
      {
        region: 'GLOBAL',
        networkId: null,
        reason: 'the GLOBAL storefront is used only when no regional storefront serves DE',
      },
    ]);
  });

  it('should choose every non-GLOBAL storefront shipping to the market before GLOBAL', () => {
    expect(selectRegions(shop, 'AT', 'DE')).toMatchObject({ tier: 2, regionKeys: ['DE', 'US'] });
  });

  it('should choose GLOBAL when no regional storefront serves the market', () => {
    const onlyLocal = buildProfile({
      JP: shop.regions.JP,
      GLOBAL: shop.regions.GLOBAL,
    });
    expect(selectRegions(onlyLocal, 'KE', 'JP')).toMatchObject({
      tier: 3,
      regionKeys: ['GLOBAL'],
    });
  });

  it('should fail with no_region_for_market when nothing serves the market', () => {
    const selection = selectRegions(amazon, 'KE', 'US');
    expect(selection).toMatchObject({
      tier: null,
      regionKeys: [],
      failure: 'no_region_for_market',
    });
    expect(selection.excluded).toHaveLength(Object.keys(amazon.regions).length);
  });

  it('should keep the URL on its own storefront when the merchant has no cross-storefront deep links', () => {
    const pinned = {
      ...shop,
      merchantCapabilities: { ...shop.merchantCapabilities, deepLinking: false },
    };
    const selection = selectRegions(pinned, 'AT', 'US');
    expect(selection).toMatchObject({ tier: 2, regionKeys: ['US'], failure: null });
    expect(selection.excluded).toContainEqual({
      region: 'DE',
      networkId: null,
      reason: 'merchant does not support deep links across storefronts',
    });
  });

  it('should fail with no_candidates when only other storefronts would serve the market', () => {
    const pinned = {
      ...shop,
      merchantCapabilities: { ...shop.merchantCapabilities, deepLinking: false },
    };
    const selection = selectRegions(pinned, 'FR', 'JP');
    expect(selection).toMatchObject({ tier: null, regionKeys: [], failure: 'no_candidates' });
  });

  it('should exclude a passthroughRequired storefront from a tier that has others', () => {
    const mixed = buildProfile({
      DE: { ...shop.regions.DE, passthroughRequired: true },
      US: shop.regions.US,
    });
    const selection = selectRegions(mixed, 'AT', 'US');
    expect(selection).toMatchObject({ tier: 2, regionKeys: ['US'], failure: null });
    expect(selection.excluded).toContainEqual({
      region: 'DE',
      networkId: null,
      reason: 'storefront shop.example.de (DE) requires passthrough',
    });
  });

  it("should fail with passthrough_required when the chosen storefront requires it (apple's US store)", () => {
    expect(selectRegions(apple, 'US', 'GLOBAL')).toMatchObject({
      tier: 1,
      regionKeys: [],
      failure: 'passthrough_required',
    });
  });

  it('should choose the GLOBAL region directly for the GLOBAL market', () => {
    expect(selectRegions(asos, 'GLOBAL', 'GLOBAL')).toMatchObject({
      tier: 1,
      regionKeys: ['GLOBAL'],
    });
  });
});
