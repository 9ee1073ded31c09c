import fc from 'fast-check';
import type { FuzzFixture } from './fixture';
import { hostileChar, Filler, hostileString, Text, textOf } from './values';

/**
 * A request written byte by byte, for what no HTTP client sends: control characters and raw
 * UTF-8 in the request line and in header values, bad header names, obs-folding, oversized
 * heads, conflicting framing headers, other HTTP versions. Node's parser refuses most of
 * them before Fastify sees them, and the answer must still be a non-5xx in the envelope.
 */
export interface RawSpec {
  method: Text;
  target: Text;
  version: string;
  headers: Array<[Text, Text]>;
  /** Body text and how it is framed. */
  body: { text: string; framing: 'content-length' | 'chunked' | 'bad-chunked' | 'both' } | null;
}

/** Latin-1 string of the bytes: characters beyond Latin-1 as their UTF-8 bytes. */
const bytesOf = (text: string): string => {
  let out = '';
  for (const char of text) {
    out += char.codePointAt(0)! <= 0xff ? char : Buffer.from(char, 'utf8').toString('latin1');
  }
  return out;
};

export function renderRaw(spec: RawSpec): Buffer {
  const lines = [`${bytesOf(textOf(spec.method))} ${bytesOf(textOf(spec.target))} ${spec.version}`];
  lines.push('Host: 127.0.0.1', 'Connection: close');
  for (const [name, value] of spec.headers)
    lines.push(`${bytesOf(textOf(name))}: ${bytesOf(textOf(value))}`);
  let body = '';
  if (spec.body !== null) {
    const text = bytesOf(spec.body.text);
    const length = Buffer.byteLength(text, 'latin1');
    switch (spec.body.framing) {
      case 'content-length':
        lines.push('Content-Type: application/json', `Content-Length: ${length}`);
        body = text;
        break;
      case 'chunked':
        lines.push('Content-Type: application/json', 'Transfer-Encoding: chunked');
        body = `${length.toString(16)}\r\n${text}\r\n0\r\n\r\n`;
        break;
      case 'bad-chunked':
        lines.push('Content-Type: application/json', 'Transfer-Encoding: chunked');
        body = `zz\r\n${text}\r\n0\r\n\r\n`;
        break;
      case 'both':
        lines.push(
          'Content-Type: application/json',
          `Content-Length: ${length + 5}`,
          'Transfer-Encoding: chunked',
        );
        body = `${length.toString(16)}\r\n${text}\r\n0\r\n\r\n`;
        break;
    }
  }
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}`, 'latin1');
}

export function rawHeadBytes(spec: RawSpec): number {
  const bytes = renderRaw(spec);
  const end = bytes.indexOf('\r\n\r\n');
  return end < 0 ? bytes.length : end;
}

export function rawTargetOf(spec: RawSpec): string {
  return bytesOf(textOf(spec.target));
}

export function describeRaw(spec: RawSpec): string {
  const head = renderRaw(spec).toString('latin1');
  const shown = head.length > 400 ? `${head.slice(0, 400)}…(${head.length} bytes)` : head;
  return `raw bytes ${JSON.stringify(shown)}`;
}

/** Stats key for a raw request: the path it aimed at, whatever was done to it. */
export function rawRouteOf(spec: RawSpec): string {
  const target = rawTargetOf(spec);
  const base = ['/v1/links', '/v1/health', '/r/', '/docs-json'].find((path) =>
    target.startsWith(path),
  );
  return `RAW ${base ?? '(other target)'}`;
}

export function rawSpecArb(fixture: FuzzFixture): fc.Arbitrary<RawSpec> {
  const key = fixture.workhorseKeys[0].apiKey;
  const linkId = fixture.linkIds[0];
  const targets = ['/v1/health', '/v1/links', `/v1/links/${linkId}`, `/r/${linkId}`, '/docs-json'];
  const spliced = (base: fc.Arbitrary<string>) =>
    fc
      .tuple(
        base,
        fc.oneof(hostileChar, fc.constantFrom('\x7f', '\x80', '\xff', '\xc3', ' ', '\x00')),
        fc.nat(),
      )
      .map(([text, char, at]) => {
        const index = at % (text.length + 1);
        return text.slice(0, index) + char + text.slice(index);
      });
  const method = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom<Text>('GET', 'POST', 'HEAD') },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Text>('get', 'FOO', 'G T', 'GE\x00T', 'PRI', new Filler('A', 300)),
    },
  );
  const target = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom<Text>(...targets) },
    { weight: 4, arbitrary: spliced(fc.constantFrom(...targets)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Text>(
        'http://127.0.0.1/v1/health',
        '*',
        'v1/health',
        '//v1//health',
        '/v1/health#frag',
        new Filler('a', 9_000, '/v1/links/'),
        new Filler('a', 70_000, '/v1/links?q='),
      ),
    },
  );
  const version = fc.oneof(
    { weight: 8, arbitrary: fc.constant('HTTP/1.1') },
    {
      weight: 1,
      arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1x', 'http/1.1', 'HTTP/0.9', ''),
    },
  );
  const headerValue = fc.oneof(
    spliced(
      fc.constantFrom(`Bearer ${key}`, 'Mozilla/5.0', 'US', '198.51.100.7', 'https://linkpilot.io'),
    ),
    hostileString(16),
    fc.constantFrom<Text>(
      'x\r\n continued',
      'a\nb',
      'a\rb',
      new Filler('x', 20_000),
      new Filler('é', 9_000),
    ),
  );
  const headerName = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom<Text>(
        'Authorization',
        'User-Agent',
        'CF-IPCountry',
        'X-Bot-Score',
        'X-Forwarded-For',
        'Origin',
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Text>('X Bad', 'X:Colon', '', 'Ü', 'X-\x00', ' Leading', '(x)'),
    },
  );
  const header = fc.tuple(headerName, headerValue);
  const body = fc.option(
    fc.record({
      text: fc.oneof(
        fc.constant('{"originalUrl":"https://www.amazon.com/dp/B0BDHWDR12"}'),
        hostileString(20),
      ),
      framing: fc.constantFrom(
        'content-length' as const,
        'chunked' as const,
        'bad-chunked' as const,
        'both' as const,
      ),
    }),
    { nil: null },
  );
  return fc.record({
    method,
    target,
    version,
    headers: fc.oneof(
      { weight: 6, arbitrary: fc.array(header, { maxLength: 4 }) },
      {
        weight: 1,
        arbitrary: fc.constant<Array<[Text, Text]>>(
          Array.from({ length: 300 }, (_, i) => [`X-Many-${i}`, 'v']),
        ),
      },
    ),
    body,
  });
}
