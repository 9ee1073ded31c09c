import { mergeFxRates } from '../src/fx/math/merge-fx-rates';
import { SUPPORTED_CURRENCIES } from '../src/fx/math/fx-snapshot';
import { FX_SNAPSHOT } from './fx.seed';

describe('FX_SNAPSHOT', () => {
  it('should price all 23 supported currencies and nothing else, USD at 1', () => {
    expect(Object.keys(FX_SNAPSHOT.rates).sort()).toEqual([...SUPPORTED_CURRENCIES].sort());
    expect(FX_SNAPSHOT.rates.USD).toBe(1);
    expect(mergeFxRates(FX_SNAPSHOT.rates, null)).toMatchObject({ ok: true, carriedOver: [] });
  });

  it('should be a USD-based snapshot valid at 2026-11-20T00:00:00Z', () => {
    expect(FX_SNAPSHOT.base).toBe('USD');
    expect(new Date(FX_SNAPSHOT.validAt).toISOString()).toBe('2026-11-20T00:00:00.000Z');
  });
});
