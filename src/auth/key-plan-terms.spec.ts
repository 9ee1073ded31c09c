import { checkKeyOptions, KeyPlanTerms } from './api-keys.service';

/** Key options follow the plan row's capabilities, whatever the plan is called. */
describe(checkKeyOptions.name, () => {
  const none: KeyPlanTerms = { hasTestKeys: false, hasIpAllowlists: false };
  const both: KeyPlanTerms = { hasTestKeys: true, hasIpAllowlists: true };

  it('should accept a live key without an allowlist on any plan', () => {
    expect(checkKeyOptions(none, 'live', [])).toEqual([]);
  });

  it('should refuse a test key when the plan has no test keys', () => {
    expect(() => checkKeyOptions(none, 'test', [])).toThrow(
      expect.objectContaining({ code: 'ENTERPRISE_TIER_REQUIRED' }),
    );
  });

  it('should refuse an allowlist when the plan has no IP allowlists', () => {
    expect(() =>
      checkKeyOptions({ ...both, hasIpAllowlists: false }, 'live', ['10.0.0.1']),
    ).toThrow(expect.objectContaining({ code: 'ENTERPRISE_TIER_REQUIRED' }));
  });

  it('should accept both, normalising the allowlist, when the plan row has both', () => {
    expect(checkKeyOptions(both, 'test', [' 10.0.0.0/8 ', '::ffff:192.0.2.1'])).toEqual([
      '10.0.0.0/8',
      '192.0.2.1',
    ]);
  });

  it('should refuse a malformed allowlist entry with the validation error', () => {
    expect(() => checkKeyOptions(both, 'live', ['10.0.0.300'])).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR' }),
    );
  });
});
