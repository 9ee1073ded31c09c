import fc from 'fast-check';
import { exceedsJsonDepth } from './json-body';

describe(exceedsJsonDepth.name, () => {
  /** The nesting depth of a parsed JSON value, computed the obvious (recursive) way. */
  const depthOf = (value: unknown): number =>
    typeof value === 'object' && value !== null
      ? 1 + Math.max(0, ...Object.values(value).map(depthOf))
      : 0;

  it.each([
    ['a scalar', '1', 0, false],
    ['an empty object at depth 1', '{}', 1, false],
    ['an empty object over depth 0', '{}', 0, true],
    ['brackets inside strings', '{"a":"[[[[{{{{"}', 1, false],
    ['an escaped quote inside a string', '{"a":"\\"[[[["}', 1, false],
    ['an escaped backslash before the closing quote', '{"a":"\\\\","b":[[1]]}', 2, true],
    ['siblings do not add up', '[[1],[2],[3]]', 2, false],
  ])('should judge %s', (_name, text, maxDepth, expected) => {
    expect(exceedsJsonDepth(text, maxDepth)).toBe(expected);
  });

  it('should refuse a 5,000-deep body without recursion', () => {
    expect(exceedsJsonDepth('['.repeat(5000) + ']'.repeat(5000), 32)).toBe(true);
  });

  it('should agree with the depth of any valid JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 10 }), (value, max) => {
        const text = JSON.stringify(value);
        expect(exceedsJsonDepth(text, max)).toBe(depthOf(value) > max);
      }),
    );
  });
});
