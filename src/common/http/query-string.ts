const PERCENT = 0x25;
/** The lone low surrogate that stands for byte 0x00 (PEP 383's `surrogateescape`). */
const ESCAPED_BYTE_BASE = 0xdc00;

/** A parsed query: a repeated name gives an array of its values, in order. */
export type ParsedQuery = Record<string, string | string[]>;

/**
 * Fastify's `querystringParser` for the API: Fastify's own rules (`&` separates, the first
 * `=` splits, `+` is a space, a name without `=` has the value '', a repeated name gives an
 * array, no prototype) with one difference. Fastify keeps a component whose percent-escapes
 * are not UTF-8 (`%ED%BF%BF`, a lone surrogate in WTF-8; `%FF`) as the raw escapes, so
 * `search=%ED%BF%BF` searched for the nine characters `%ED%BF%BF`, silently; WHATWG's
 * parser would give U+FFFD, as silently. Here each byte that is not part of a UTF-8
 * character becomes a lone surrogate (U+DC80 to U+DCFF, as Python's `surrogateescape` does),
 * which the global text rule (RefuseMalformedTextPipe) refuses with a 400 naming the
 * parameter. A `%` not followed by two hex digits stays as it is (`100%` is `100%`).
 */
export function parseQueryString(query: string): ParsedQuery {
  const result = Object.create(null) as ParsedQuery;
  let start = 0;
  while (start <= query.length) {
    let end = query.indexOf('&', start);
    if (end === -1) end = query.length;
    if (end > start) addPair(result, query.slice(start, end));
    start = end + 1;
  }
  return result;
}

function addPair(result: ParsedQuery, pair: string): void {
  const equals = pair.indexOf('=');
  const name = decodeComponent(equals === -1 ? pair : pair.slice(0, equals));
  const value = equals === -1 ? '' : decodeComponent(pair.slice(equals + 1));
  const current = result[name];
  if (current === undefined) result[name] = value;
  else if (Array.isArray(current)) current.push(value);
  else result[name] = [current, value];
}

function decodeComponent(component: string): string {
  const spaced = component.includes('+') ? component.replaceAll('+', ' ') : component;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    // A broken escape or bytes that are not UTF-8: decoded byte by byte below.
    return decodeUtf8SurrogateEscaped(percentDecodeBytes(spaced));
  }
}

/** The bytes a component stands for: `%XX` is one byte, anything else its UTF-8 bytes. */
function percentDecodeBytes(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const byte = code === PERCENT ? hexByteAt(text, i + 1) : -1;
    if (byte !== -1) {
      bytes.push(byte);
      i += 2;
    } else if (code < 0x80) {
      bytes.push(code);
    } else {
      // Node refuses raw non-ASCII bytes in a request target; kept for any other caller.
      const char = String.fromCodePoint(text.codePointAt(i) as number);
      bytes.push(...Buffer.from(char, 'utf8'));
      i += char.length - 1;
    }
  }
  return Buffer.from(bytes);
}

function hexByteAt(text: string, index: number): number {
  const hex = text.slice(index, index + 2);
  return /^[0-9A-Fa-f]{2}$/.test(hex) ? parseInt(hex, 16) : -1;
}

/**
 * UTF-8 bytes as text, each byte that does not belong to a well-formed UTF-8 character
 * (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF) as the lone surrogate
 * U+DC00 + byte. Valid UTF-8 never decodes to a surrogate, so such a byte is always lone.
 */
export function decodeUtf8SurrogateEscaped(bytes: Uint8Array): string {
  let text = '';
  let i = 0;
  while (i < bytes.length) {
    const length = utf8SequenceLength(bytes, i);
    if (length === 0) {
      text += String.fromCharCode(ESCAPED_BYTE_BASE + bytes[i]);
      i++;
    } else {
      text += Buffer.from(bytes.subarray(i, i + length)).toString('utf8');
      i += length;
    }
  }
  return text;
}

/** The length of the well-formed UTF-8 character at `i`, or 0 when there is none. */
function utf8SequenceLength(bytes: Uint8Array, i: number): number {
  const lead = bytes[i];
  if (lead < 0x80) return 1;
  const [length, secondMin, secondMax] = utf8LeadRule(lead);
  if (length === 0) return 0;
  const second = bytes[i + 1];
  if (second === undefined || second < secondMin || second > secondMax) return 0;
  for (let k = 2; k < length; k++) {
    const next = bytes[i + k];
    if (next === undefined || next < 0x80 || next > 0xbf) return 0;
  }
  return length;
}

/**
 * For a lead byte: the character's length and the range of its second byte (RFC 3629
 * section 4), which rules out overlong forms, surrogates (ED A0..BF) and code points past
 * U+10FFFF. Length 0: not a lead byte.
 */
function utf8LeadRule(lead: number): [length: number, secondMin: number, secondMax: number] {
  if (lead >= 0xc2 && lead <= 0xdf) return [2, 0x80, 0xbf];
  if (lead === 0xe0) return [3, 0xa0, 0xbf];
  if (lead === 0xed) return [3, 0x80, 0x9f];
  if (lead >= 0xe1 && lead <= 0xef) return [3, 0x80, 0xbf];
  if (lead === 0xf0) return [4, 0x90, 0xbf];
  if (lead >= 0xf1 && lead <= 0xf3) return [4, 0x80, 0xbf];
  if (lead === 0xf4) return [4, 0x80, 0x8f];
  return [0, 0, 0];
}
