import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { decodeUtf8SurrogateEscaped, parseQueryString } from './query-string';

describe(parseQueryString.name, () => {
  it.each([
    ['nothing', '', {}],
    ['a pair', 'a=1', { a: '1' }],
    ['a name without =', 'a', { a: '' }],
    ['an empty name', '=x', { '': 'x' }],
    ['empty pairs', '&&a=1&', { a: '1' }],
    ['a repeated name', 'a=1&a=2&a=3', { a: ['1', '2', '3'] }],
    ['+ as a space', 'a+b=c+d', { 'a b': 'c d' }],
    ['an encoded +', 'a=%2B', { a: '+' }],
    ['only the first =', 'a=b=c', { a: 'b=c' }],
    ['UTF-8 escapes', 'q=caf%C3%A9%E2%82%AC%F0%9F%98%80', { q: 'café€😀' }],
    ['U+FFFD and a BOM', 'q=%EF%BF%BD%EF%BB%BF', { q: '\ufffd\ufeff' }],
    ['a % with no hex after it', 'q=100%&r=%zz&s=%4', { q: '100%', r: '%zz', s: '%4' }],
    ['a lone surrogate in WTF-8', 'q=%ED%BF%BF', { q: '\udced\udcbf\udcbf' }],
    ['a byte that is not UTF-8', 'q=a%FFb', { q: 'a\udcffb' }],
    ['a cut character beside a broken escape', 'q=%E0%A4%A', { q: '\udce0\udca4%A' }],
    ['an overlong form in a name', '%C0%AE=1', { '\udcc0\udcae': '1' }],
    ['a prototype name', '__proto__=x', { ['__proto__']: 'x' }],
  ])('should parse %s', (_name, query, expected) => {
    const parsed = parseQueryString(query);
    expect(Object.getPrototypeOf(parsed)).toBeNull();
    expect({ ...parsed }).toEqual(expected);
  });

  it('should agree with URLSearchParams on every query of well-formed text', () => {
    const pairs = fc.array(
      fc.tuple(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' })),
      {
        maxLength: 6,
      },
    );
    fc.assert(
      fc.property(pairs, (entries) => {
        const query = new URLSearchParams(entries).toString();
        const expected = Object.create(null) as Record<string, string | string[]>;
        for (const [name, value] of new URLSearchParams(query)) {
          const current = expected[name];
          expected[name] =
            current === undefined
              ? value
              : [...(Array.isArray(current) ? current : [current]), value];
        }
        expect({ ...parseQueryString(query) }).toEqual({ ...expected });
      }),
    );
  });
});

describe(decodeUtf8SurrogateEscaped.name, () => {
  /** The bytes back: an escaped byte from its surrogate, the rest as UTF-8. */
  const encode = (text: string): Buffer =>
    Buffer.concat(
      [...text].map((char) => {
        const code = char.charCodeAt(0);
        return char.length === 1 && code >= 0xdc80 && code <= 0xdcff
          ? Buffer.from([code - 0xdc00])
          : Buffer.from(char, 'utf8');
      }),
    );

  it('should be well-formed exactly when the bytes are UTF-8, and lose no byte', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 8 }).map((text) => new Uint8Array(Buffer.from(text))),
    );
    fc.assert(
      fc.property(bytes, (input) => {
        const text = decodeUtf8SurrogateEscaped(input);
        expect(text.isWellFormed()).toBe(isUtf8(input));
        // Node's own decoding where the bytes are UTF-8; where not, Node's has U+FFFD instead.
        expect(text === Buffer.from(input).toString('utf8')).toBe(isUtf8(input));
        expect(encode(text)).toEqual(Buffer.from(input));
      }),
    );
  });

  it.each([
    ['a surrogate (CESU-8)', [0xed, 0xa0, 0x80], '\udced\udca0\udc80'],
    ['an overlong slash', [0xc0, 0xaf], '\udcc0\udcaf'],
    ['past U+10FFFF', [0xf4, 0x90, 0x80, 0x80], '\udcf4\udc90\udc80\udc80'],
    ['a cut character, then ASCII', [0xe2, 0x82, 0x41], '\udce2\udc82A'],
    ['the largest code point', [0xf4, 0x8f, 0xbf, 0xbf], '\u{10ffff}'],
  ])('should decode %s', (_name, bytes, expected) => {
    expect(decodeUtf8SurrogateEscaped(Uint8Array.from(bytes))).toBe(expected);
  });
});
