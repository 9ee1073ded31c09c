import { findMalformedText, toMalformedTextError } from './malformed-text';

describe(findMalformedText.name, () => {
  const strict = { isNulRefused: true };

  it.each([
    ['a lone low surrogate', { a: 'x\udfffy' }, 'a'],
    ['a lone high surrogate at the end', { a: 'x\ud800' }, 'a'],
    ['a reversed pair', { a: '\ude00\ud83d' }, 'a'],
    ['a nested value', { a: { b: ['ok', '\udc00'] } }, 'a.b.1'],
    ['a key, written with its escape', { a: { ['k\udfff']: 1 } }, 'a.k\\udfff'],
    ['a NUL', { a: { b: 'x\u0000' } }, 'a.b'],
    ['a NUL in a key', { ['a\u0000']: 1 }, 'a\u0000'],
    ['the value itself', '\ud800', ''],
  ])('should find %s', (_name, value, field) => {
    expect(findMalformedText(value, strict)?.field).toBe(field);
  });

  it.each([
    ['U+FFFD', '\ufffd'],
    ['a BOM', '\ufeff'],
    ['non-characters', '\ufffe\uffff\u{1fffe}\u{10ffff}\ufdd0'],
    ['a surrogate pair', '😀'],
    ['numbers, booleans and null', [1, true, null]],
  ])('should pass %s', (_name, value) => {
    expect(findMalformedText({ a: value, [String(value)]: 1 }, strict)).toBeNull();
  });

  it('should pass a NUL when NUL is allowed, but not a lone surrogate', () => {
    expect(findMalformedText('a\u0000', { isNulRefused: false })).toBeNull();
    expect(findMalformedText('a\udfff', { isNulRefused: false })).not.toBeNull();
  });

  it('should leave the items of the named array alone, not its key nor its siblings', () => {
    const rules = { isNulRefused: true, itemsValidatedAlone: 'links' };
    expect(findMalformedText({ links: [{ title: '\ud800' }, '\u0000'] }, rules)).toBeNull();
    expect(findMalformedText({ links: [], other: '\ud800' }, rules)?.field).toBe('other');
    expect(findMalformedText({ links: '\ud800' }, rules)?.field).toBe('links');
    expect(findMalformedText({ a: { links: ['\ud800'] } }, rules)?.field).toBe('a.links.0');
  });
});

describe(toMalformedTextError.name, () => {
  it('should name the field in the message and the details', () => {
    const found = findMalformedText(
      { utmOverride: { utm_source: 'x\udfff' } },
      { isNulRefused: true },
    );
    const error = toMalformedTextError(found!, 'request', 'body');
    expect(error.message).toBe('Invalid request: utmOverride.utm_source.');
    expect(error.details).toEqual({
      'utmOverride.utm_source': [
        expect.stringMatching(/^utmOverride\.utm_source must be well-formed/),
      ],
    });
  });

  it('should name the value itself by the given name', () => {
    const error = toMalformedTextError(
      findMalformedText('\ud800', { isNulRefused: false })!,
      'request',
      'id',
    );
    expect(Object.keys(error.details ?? {})).toEqual(['id']);
  });
});
