import { join } from 'node:path';
import fc from 'fast-check';
import { checkKnowledgeBase } from './check-knowledge-base';
import { diffKnowledgeBase, StoredProfile } from './knowledge-base-diff';
import type { MerchantProfile } from './merchant-profile';

const { profiles } = checkKnowledgeBase(join(__dirname, '../../../seeds/merchants'));

/** A profile as it comes back from the jsonb column. */
const asStored = (profile: MerchantProfile): MerchantProfile =>
  JSON.parse(JSON.stringify(profile)) as MerchantProfile;

function stored(list: MerchantProfile[], editedByOperator = false): Map<string, StoredProfile> {
  return new Map(
    list.map((profile) => [profile.merchantId, { profile: asStored(profile), editedByOperator }]),
  );
}

/** Every (merchant, region, network) that carries an EPC hint in the bundle. */
const HINTS = profiles.flatMap((profile) =>
  Object.entries(profile.regions).flatMap(([region, { epcHints }]) =>
    Object.keys(epcHints).map((networkId) => ({
      merchantId: profile.merchantId,
      region,
      networkId,
    })),
  ),
);

describe('diffKnowledgeBase', () => {
  it('should find nothing when the stored knowledge base is the bundle', () => {
    expect(diffKnowledgeBase(stored(profiles), profiles)).toEqual([]);
  });

  it('should list the merchants missing from the store as added', () => {
    const [first, ...rest] = profiles;
    expect(diffKnowledgeBase(stored(rest), profiles)).toEqual([
      {
        merchantId: first.merchantId,
        change: 'added',
        editedByOperator: false,
        version: { before: null, after: first.meta.version },
        epcHints: [],
      },
    ]);
  });

  it('should report exactly the one EPC hint an operator changed, with its before and after', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...HINTS),
        fc.double({ min: 0, max: 10, noNaN: true }),
        ({ merchantId, region, networkId }, epc) => {
          const store = stored(profiles, true);
          const hints = store.get(merchantId)!.profile.regions[region].epcHints as Record<
            string,
            number
          >;
          const bundled = hints[networkId];
          fc.pre(epc !== bundled);
          hints[networkId] = epc;
          expect(diffKnowledgeBase(store, profiles)).toEqual([
            expect.objectContaining({
              merchantId,
              change: 'changed',
              editedByOperator: true,
              epcHints: [
                {
                  region,
                  networkId,
                  currency: store.get(merchantId)!.profile.regions[region].baseCurrency,
                  before: epc,
                  after: bundled,
                },
              ],
            }),
          ]);
        },
      ),
    );
  });
});
