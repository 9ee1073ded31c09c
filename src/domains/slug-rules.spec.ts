import fc from 'fast-check';
import { normaliseSlug, RESERVED_SLUGS, slugProblemOf } from './slug-rules';

describe('slugProblemOf', () => {
  it.each([
    ['sale', null],
    ['black-friday-2026', null],
    ['a', null],
    ['x'.repeat(64), null],
  ])('should take %s', (slug, problem) => {
    expect(slugProblemOf(slug)).toBe(problem);
  });

  it.each([
    [''],
    ['x'.repeat(65)],
    ['with space'],
    ['under_score'],
    ['dot.ted'],
    ['Upper'],
    ['café'],
    ['a/b'],
  ])('should refuse %j as malformed', (slug) => {
    expect(slugProblemOf(slug)).toMatch(/^must be/);
  });

  it.each([['r'], ['v1'], ['docs'], ['api'], ['internal'], ['health'], ['livez'], ['readyz']])(
    'should refuse the reserved %s',
    (slug) => {
      expect(slugProblemOf(slug)).toMatch(/reserved/);
    },
  );

  it('should refuse every reserved word whatever case it is typed in', () => {
    for (const reserved of RESERVED_SLUGS) {
      expect(slugProblemOf(normaliseSlug(reserved.toUpperCase()))).not.toBeNull();
    }
  });
});

describe('normaliseSlug', () => {
  it('should lowercase ASCII letters only', () => {
    expect(normaliseSlug('Black-FRIDAY-2026')).toBe('black-friday-2026');
    expect(normaliseSlug('İx')).toBe('İx');
  });

  it('should give every accepted slug one spelling for all its cases', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-zA-Z0-9-]{1,64}$/), (typed) => {
        const slug = normaliseSlug(typed);
        expect(normaliseSlug(typed.toUpperCase())).toBe(slug);
        expect(slug).toMatch(/^[a-z0-9-]{1,64}$/);
      }),
    );
  });
});
