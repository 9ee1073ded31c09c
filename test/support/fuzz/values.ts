import fc from 'fast-check';

/**
 * A long run of one unit (`'é' x 50000`), kept as a description until the request is sent so
 * that a counterexample prints as `Filler('é', 50000)` instead of 50,000 characters. It turns
 * into its text wherever a string is expected: JSON.stringify (toJSON) and String().
 */
export class Filler {
  constructor(
    readonly unit: string,
    readonly count: number,
    readonly prefix = '',
  ) {}

  toString(): string {
    return this.prefix + this.unit.repeat(this.count);
  }

  toJSON(): string {
    return this.toString();
  }

  [fc.toStringMethod](): string {
    const prefix = this.prefix === '' ? '' : `${JSON.stringify(this.prefix)} + `;
    return `Filler(${prefix}${JSON.stringify(this.unit)} x ${this.count})`;
  }
}

export type Text = string | Filler;

export const textOf = (value: Text): string => String(value);

/**
 * The edges of Unicode text: lone surrogates (high and low, and a pair in the wrong order),
 * which are not text and must be refused; and U+FFFD, the BOM and non-characters (U+FFFE,
 * U+FFFF, U+FDD0, U+1FFFE, U+10FFFF), which are text and must be kept as sent. JSON.stringify
 * writes a lone surrogate as a `\udfff` escape; encodeComponent as its WTF-8 bytes.
 */
const UNICODE_EDGE_CHARS = [
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\udc00\ud800',
  '\ufffd',
  '\ufeff',
  '\ufffe',
  '\uffff',
  '\ufdd0',
  '\u{1fffe}',
  '\u{10ffff}',
] as const;

/** `base` a quarter of the time with one of UNICODE_EDGE_CHARS put in, at any character. */
export function withUnicodeEdges(base: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const spliced = fc
    .tuple(base, fc.constantFrom(...UNICODE_EDGE_CHARS), fc.nat())
    .map(([text, edge, at]) => {
      const chars = [...text];
      chars.splice(at % (chars.length + 1), 0, edge);
      return chars.join('');
    });
  return fc.oneof({ weight: 3, arbitrary: base }, { weight: 1, arbitrary: spliced });
}

/**
 * Characters that break parsers, headers, logs and URL handling: C0 controls (CR, LF, TAB,
 * NUL, ESC), DEL, C1 controls (NEL, CSI), line and paragraph separators, a bidi override,
 * the edges of Unicode (UNICODE_EDGE_CHARS), astral and joined emoji, Latin-1 and CJK
 * letters, and the delimiters of URLs, JSON and HTML.
 */
const HOSTILE_CHARS = [
  '\r',
  '\n',
  '\r\n',
  '\t',
  '\0',
  '\x1b',
  '\x7f',
  '\x85',
  '\x9b',
  '\x9f',
  '\u2028',
  '\u202e',
  ...UNICODE_EDGE_CHARS,
  '😀',
  '👩‍👩‍👧',
  '€',
  'é',
  'ß',
  '中',
  '"',
  "'",
  '\\',
  '<',
  '>',
  '%',
  '%00',
  '%0d%0a',
  '&',
  '=',
  '?',
  '#',
  '/',
  '..',
  ' ',
  '+',
] as const;

export const hostileChar: fc.Arbitrary<string> = fc.constantFrom(...HOSTILE_CHARS);

/** Values that mean something to some layer: JS, SQL, templates, paths, number parsing. */
const MAGIC_STRINGS = [
  '',
  ' ',
  'null',
  'undefined',
  'true',
  '0',
  '-1',
  'NaN',
  'Infinity',
  '1e309',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  '[object Object]',
  '${7*7}',
  '{{7*7}}',
  "' OR 1=1 --",
  '../../etc/passwd',
  '%s%s%s%n',
  '\0\0\0\0',
] as const;

/** Mostly short strings, every one of them hostile in some way (a lone surrogate often). */
export function hostileString(maxLength = 24): fc.Arbitrary<string> {
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .array(fc.oneof(fc.string({ unit: 'grapheme-ascii', maxLength: 4 }), hostileChar), {
          maxLength,
        })
        .map((parts) => parts.join('')),
    },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength }) },
    { weight: 2, arbitrary: fc.constantFrom(...MAGIC_STRINGS) },
  );
}

/** Strings from a few hundred characters to about 2 MB of UTF-8 (within and past limits). */
function hugeText(maxCount = 300_000): fc.Arbitrary<Filler> {
  return fc
    .tuple(
      fc.constantFrom('a', 'é', '€', '😀', '\ud800', '\n', '%'),
      fc.integer({ min: 201, max: maxCount }),
    )
    .map(([unit, count]) => new Filler(unit, count));
}

/** Any text: ordinary, hostile, or huge. */
export function anyText(): fc.Arbitrary<Text> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
    { weight: 6, arbitrary: hostileString() },
    { weight: 1, arbitrary: hugeText(20_000) },
  );
}

/** Numbers at the edges of every number parser. */
const EDGE_NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.5,
  1e21,
  -1e21,
  1.7976931348623157e308,
  5e-324,
  2 ** 31,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 63),
  101,
  99_999_999_999,
] as const;

/**
 * A JSON value of the wrong kind for whatever field it lands in: scalars of every type,
 * hostile strings, arrays and objects (with prototype-named keys), and huge strings.
 */
export function wrongValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: anyText() },
    { weight: 2, arbitrary: fc.constantFrom<unknown>(...EDGE_NUMBERS, true, false, null) },
    { weight: 1, arbitrary: fc.double() },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }) },
    {
      weight: 1,
      arbitrary: fc.dictionary(
        fc.oneof(hostileString(8), fc.constantFrom('__proto__', 'constructor', 'prototype')),
        fc.jsonValue({ maxDepth: 2 }),
        { maxKeys: 4 },
      ),
    },
  );
}
