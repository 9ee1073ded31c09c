import type { FuzzKey } from './fixture';
import { Text, textOf } from './values';
import type { WireRequest } from './wire';

/**
 * A generated request, kept as a description (which key, which body shape) rather than as
 * bytes, so that fast-check can shrink it and its counterexample reads like a request.
 */
export interface FuzzRequest {
  /** The catalogue route it was generated for (`GET /v1/links/:id`): the statistics key. */
  route: string;
  method: string;
  /** Path and query, in pieces (a huge id stays a Filler until sent). */
  target: Text[];
  auth: AuthSpec;
  headers: Record<string, Text>;
  body: BodySpec;
}

export type AuthSpec =
  | { kind: 'none' }
  /** `${scheme}${gap}${apiKey}${suffix}`: `Bearer <key>` and its misspellings. */
  | { kind: 'key'; key: FuzzKey; scheme: string; gap: string; suffix: string }
  | { kind: 'garbage'; value: Text };

export type BodySpec =
  | { kind: 'none' }
  /** JSON.stringify(value), with a content type (null: no Content-Type header). */
  | { kind: 'json'; value: unknown; contentType: string | null }
  /** Text sent as UTF-8 as it is: not JSON, or JSON no serialiser would write. */
  | { kind: 'text'; text: Text; contentType: string | null }
  /** Valid JSON of `value` with `bytes` spliced in at `at` (mod length): invalid UTF-8. */
  | { kind: 'bad-utf8'; value: unknown; bytes: number[]; at: number }
  /** Arrays or objects nested `depth` deep, at the top or inside a field of a real body. */
  | {
      kind: 'deep';
      depth: number;
      shape: 'array' | 'object';
      inside: Record<string, unknown> | null;
    }
  /** `base` with a prototype-named key prepended, at the top or inside `utmOverride`. */
  | {
      kind: 'poisoned';
      key: '__proto__' | 'constructor' | 'prototype';
      payload: unknown;
      base: Record<string, unknown>;
      nested: boolean;
    }
  /** A valid JSON object of exactly `bytes` bytes (the limit is 1 MiB). */
  | { kind: 'oversized'; bytes: number };

export const JSON_TYPE = 'application/json';

export function toWire(request: FuzzRequest): WireRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    headers[name] = toHeaderValue(textOf(value));
  }
  const authorization = renderAuth(request.auth);
  if (authorization !== undefined) headers.authorization = toHeaderValue(authorization);
  const body = renderBody(request.body);
  if (body.contentType !== null) headers['content-type'] = toHeaderValue(body.contentType);
  return {
    method: request.method,
    path: toRequestTarget(request.target.map(textOf).join('')),
    headers,
    body: body.bytes,
  };
}

function renderAuth(auth: AuthSpec): string | undefined {
  switch (auth.kind) {
    case 'none':
      return undefined;
    case 'key':
      return `${auth.scheme}${auth.gap}${auth.key.apiKey}${auth.suffix}`;
    case 'garbage':
      return textOf(auth.value);
  }
}

const PLACEHOLDER = '"\u0000FUZZ-PLACEHOLDER\u0000"';

function renderBody(body: BodySpec): { bytes: Buffer | undefined; contentType: string | null } {
  switch (body.kind) {
    case 'none':
      return { bytes: undefined, contentType: null };
    case 'json':
      return { bytes: utf8(JSON.stringify(body.value) ?? 'null'), contentType: body.contentType };
    case 'text':
      return { bytes: utf8(textOf(body.text)), contentType: body.contentType };
    case 'bad-utf8': {
      const json = utf8(JSON.stringify(body.value) ?? 'null');
      const at = body.at % (json.length + 1);
      const bytes = Buffer.concat([
        json.subarray(0, at),
        Buffer.from(body.bytes),
        json.subarray(at),
      ]);
      return { bytes, contentType: JSON_TYPE };
    }
    case 'deep': {
      const [open, close] = body.shape === 'array' ? ['[', ']'] : ['{"a":', '}'];
      const nest = `${open.repeat(body.depth)}1${close.repeat(body.depth)}`;
      const text =
        body.inside === null
          ? nest
          : JSON.stringify({ ...body.inside, utmOverride: PLACEHOLDER }).replace(
              JSON.stringify(PLACEHOLDER),
              nest,
            );
      return { bytes: utf8(text), contentType: JSON_TYPE };
    }
    case 'poisoned': {
      const poison = `{${JSON.stringify(body.key)}:${JSON.stringify(body.payload) ?? 'null'}`;
      const text = body.nested
        ? JSON.stringify({ ...body.base, utmOverride: PLACEHOLDER }).replace(
            JSON.stringify(PLACEHOLDER),
            `${poison}}`,
          )
        : `${poison}${Object.keys(body.base).length > 0 ? ',' : ''}${JSON.stringify(body.base).slice(1)}`;
      return { bytes: utf8(text), contentType: JSON_TYPE };
    }
    case 'oversized': {
      const head = '{"originalUrl":"https://www.amazon.com/dp/B0BDHWDR12","notes":"';
      const tail = '"}';
      const filler = 'x'.repeat(Math.max(0, body.bytes - head.length - tail.length));
      return { bytes: utf8(head + filler + tail), contentType: JSON_TYPE };
    }
  }
}

const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');

/**
 * A header value as a client puts it on the wire: text beyond Latin-1 as its UTF-8 bytes
 * (each byte one Latin-1 character), and the characters no client can send in a header
 * (CR, LF, NUL and other C0 controls, DEL) left out: the raw campaign sends those.
 */
function toHeaderValue(text: string): string {
  return Buffer.from(text, 'utf8')
    .toString('latin1')
    .replace(/[^\t\x20-\x7e\x80-\xff]/g, '');
}

/**
 * A request target as a client puts it on the wire: printable ASCII and Latin-1 bytes as
 * they are (so `é` goes as the lone byte 0xE9, invalid UTF-8), everything else (space,
 * controls, characters beyond Latin-1) percent-encoded as UTF-8 (lone surrogates as WTF-8).
 */
function toRequestTarget(text: string): string {
  return text.replace(/[^\x21-\xff]/gu, percentEncodeUtf8);
}

/**
 * Every character outside the URL-unreserved set percent-encoded as UTF-8; a lone surrogate
 * as its WTF-8 bytes (`\udfff` as `%ED%BF%BF`), which is how a client holding one sends it.
 */
export function encodeComponent(text: string): string {
  return text.replace(/[^A-Za-z0-9\-._~]/gu, percentEncodeUtf8);
}

/** Per character, cached: a Filler repeats one character thousands of times. */
const encodedChars = new Map<string, string>();
function percentEncodeUtf8(char: string): string {
  let encoded = encodedChars.get(char);
  if (encoded === undefined) {
    encoded = [...wtf8(char)]
      .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
      .join('');
    encodedChars.set(char, encoded);
  }
  return encoded;
}

/** UTF-8, except that a lone surrogate gets the three bytes of its code point (WTF-8). */
function wtf8(char: string): Buffer {
  const code = char.charCodeAt(0);
  const isLoneSurrogate = char.length === 1 && code >= 0xd800 && code <= 0xdfff;
  if (!isLoneSurrogate) return Buffer.from(char, 'utf8');
  return Buffer.from([0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]);
}

/** How a request is shown in a failure: what went on the wire, long parts cut. */
export function describeWire(wire: WireRequest): string {
  const headers = Object.entries(wire.headers)
    .map(([name, value]) => `${name}: ${clip(value, 160)}`)
    .join(' | ');
  const body =
    wire.body === undefined
      ? '(no body)'
      : `${wire.body.length} bytes: ${clip(wire.body.subarray(0, 2000).toString('utf8'), 600, wire.body.length)}`;
  return `${wire.method} ${clip(wire.path, 300)}\n      headers: ${headers}\n      body: ${body}`;
}

/**
 * Cut at `max` characters (`length`: that of the whole, when `text` is a prefix of it), escaped
 * as in JSON, C1 controls too.
 */
export function clip(text: string, max: number, length = text.length): string {
  const shown = length > max ? `${text.slice(0, max)}…(${length} chars)` : text;
  return JSON.stringify(shown)
    .slice(1, -1)
    .replace(
      /[\u007f-\u009f]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
}
