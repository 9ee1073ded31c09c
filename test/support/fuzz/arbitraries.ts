import fc from 'fast-check';
import { generateApiKey } from '../../../src/auth/api-key-format';
import { PRODUCT_CATEGORIES } from '../../../src/merchants/kb/merchant-profile';
import { NETWORK_IDS } from '../../../src/networks/network-ids';
import { DEVICE_TYPES } from '../../../src/routing/device-types';
import { ROUTING_PRESET_IDS } from '../../../src/routing/engine/routing-types';
import type { FuzzFixture } from './fixture';
import { AuthSpec, BodySpec, encodeComponent, JSON_TYPE } from './model';
import { linkUrl } from './urls';
import {
  anyText,
  Filler,
  hostileString,
  Text,
  textOf,
  withUnicodeEdges,
  wrongValue,
} from './values';

// ---------------------------------------------------------------------------------------
// Headers
// ---------------------------------------------------------------------------------------

/**
 * Authorization: mostly a working Enterprise key (so the request reaches validation), else
 * the ways clients get it wrong: lower-case or other schemes, odd whitespace, junk after the
 * key, a key of a plan without API access, a revoked key, a well-formed unknown key, none.
 */
export function authArb(fixture: FuzzFixture, validWeight: number): fc.Arbitrary<AuthSpec> {
  const workhorse = fc.constantFrom(...fixture.workhorseKeys);
  const anyKey = fc.oneof(
    { weight: 4, arbitrary: workhorse },
    { weight: 1, arbitrary: fc.constantFrom(...fixture.oddKeys) },
  );
  const valid = workhorse.map((key): AuthSpec => ({
    kind: 'key',
    key,
    scheme: 'Bearer',
    gap: ' ',
    suffix: '',
  }));
  const misspelt = fc.record({
    kind: fc.constant('key' as const),
    key: anyKey,
    scheme: fc.constantFrom('Bearer', 'bearer', 'BEARER', 'bEaReR', 'Basic', 'Token', ''),
    gap: fc.constantFrom(' ', '  ', '\t', '', ' \t'),
    suffix: fc.oneof(
      { weight: 3, arbitrary: fc.constant('') },
      { weight: 2, arbitrary: fc.constantFrom(' ', 'x', ' junk', ',', '0', 'é', ' Bearer x') },
      { weight: 1, arbitrary: hostileString(6) },
    ),
  });
  const unknownKey = generateApiKey('live');
  const garbage = fc
    .oneof(
      anyText(),
      fc.constantFrom(
        'Bearer',
        'Bearer ',
        'Bearer lp_live_sk_',
        `Bearer lp_live_sk_${'0'.repeat(40)}`,
        `Bearer ${unknownKey}`,
        `Bearer ${unknownKey.toUpperCase()}`,
        `Bearer ${generateApiKey('test')}`,
        `Bearer ${fixture.workhorseKeys[0].apiKey.slice(0, -1)}`,
        `Bearer ${fixture.workhorseKeys[0].apiKey}, Bearer ${fixture.workhorseKeys[1].apiKey}`,
      ),
    )
    .map((value): AuthSpec => ({ kind: 'garbage', value }));
  return fc.oneof(
    { weight: validWeight, arbitrary: valid },
    { weight: 1, arbitrary: misspelt },
    { weight: 1, arbitrary: garbage },
    { weight: 1, arbitrary: fc.constant<AuthSpec>({ kind: 'none' }) },
  );
}

/**
 * The client's address as the trusted loopback proxy reports it. Mostly a random address, so
 * the redirect's 200-clicks-per-minute-per-IP window rarely binds; sometimes a forwarding
 * chain, IPv6, the allowlisted key's address, or garbage.
 */
const clientIpArb: fc.Arbitrary<Text> = fc.oneof(
  { weight: 12, arbitrary: fc.ipV4() },
  { weight: 1, arbitrary: fc.ipV6() },
  { weight: 1, arbitrary: fc.tuple(fc.ipV4(), fc.ipV4()).map(([a, b]) => `${a}, ${b}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Text>(
      '203.0.113.7',
      'unknown',
      '',
      ' , ,',
      '999.1.1.1',
      '1.2.3.4:8080',
      '[::1]:80',
      '::ffff:127.0.0.1',
      'not-an-ip, 198.51.100.1',
      new Filler('10.0.0.1, ', 800),
    ),
  },
  { weight: 1, arbitrary: hostileString(12) },
);

const BROWSER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 320.0',
  'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
];
const BOT_AGENTS = [
  'Googlebot/2.1 (+http://www.google.com/bot.html)',
  'facebookexternalhit/1.1',
  'Twitterbot/1.0',
  'curl/8.5.0',
  'python-requests/2.31',
  'Slackbot-LinkExpanding 1.0',
];

export const userAgentArb: fc.Arbitrary<Text> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...BROWSER_AGENTS) },
  { weight: 2, arbitrary: fc.constantFrom(...BOT_AGENTS) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Text>('', '-', 'Mozilla', new Filler('Mozilla/5.0 ', 1000)),
  },
  { weight: 2, arbitrary: hostileString(40) },
);

export const countryArb: fc.Arbitrary<Text> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('US', 'GB', 'IN', 'DE', 'FR', 'JP', 'BR', 'NG', 'AE') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'us',
      ' gb ',
      'XX',
      'T1',
      'A1',
      'EU',
      '',
      'USA',
      'ÜS',
      '🇺🇸',
      'U\u0000S',
    ),
  },
  { weight: 1, arbitrary: hostileString(6) },
);

export const botScoreArb: fc.Arbitrary<Text> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: -5, max: 105 }).map(String) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      ' 5 ',
      'NaN',
      'Infinity',
      '-Infinity',
      '1e2',
      '0x10',
      '29.999',
      '1,99',
      'abc',
    ),
  },
  { weight: 1, arbitrary: hostileString(6) },
);

/** Mostly https (no effect); `http` makes the app answer 301 to https, so it stays rare. */
export const forwardedProtoArb: fc.Arbitrary<Text> = fc.oneof(
  { weight: 8, arbitrary: fc.constant('https') },
  { weight: 1, arbitrary: fc.constant('http') },
  {
    weight: 1,
    arbitrary: fc.constantFrom('HTTP', 'http, https', 'https, http', 'ws', '', ' http '),
  },
);

export const originArb: fc.Arbitrary<Text> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'https://linkpilot.io',
      'https://app.linkpilot.io',
      'https://evil.example',
      'https://linkpilot.io.evil.example',
      'http://app.linkpilot.io',
      'null',
    ),
  },
  { weight: 1, arbitrary: hostileString(16) },
);

const forwardedHostArb: fc.Arbitrary<Text> = fc.oneof(
  fc.constantFrom(
    'evil.example',
    'linkpilot.io:99999',
    'a b',
    '[::1]',
    'linkpilot.io, evil.example',
  ),
  hostileString(12),
);

/** The headers a visitor, a browser or the edge proxy adds; every one but the address optional. */
export const clientHeadersArb: fc.Arbitrary<Record<string, Text>> = fc.record(
  {
    'x-forwarded-for': clientIpArb,
    'user-agent': userAgentArb,
    'cf-ipcountry': countryArb,
    'x-bot-score': botScoreArb,
    'x-forwarded-proto': forwardedProtoArb,
    origin: originArb,
    'x-forwarded-host': forwardedHostArb,
    accept: fc.constantFrom(
      '*/*',
      'application/json',
      'text/html',
      'application/xml;q=0.9, */*;q=0.1',
    ),
  },
  { requiredKeys: ['x-forwarded-for'] },
);

/**
 * Headers for requests that should get past the edge hooks: no `X-Forwarded-Proto: http`
 * (a 301 before routing), no CORS preflight, nothing near the 16 KiB header limit.
 */
export const quietHeadersArb: fc.Arbitrary<Record<string, Text>> = fc.record(
  {
    'x-forwarded-for': fc.ipV4(),
    'user-agent': fc.oneof(fc.constantFrom(...BROWSER_AGENTS, ...BOT_AGENTS), hostileString(20)),
    'cf-ipcountry': countryArb,
    origin: originArb,
  },
  { requiredKeys: ['x-forwarded-for'] },
);

// ---------------------------------------------------------------------------------------
// Query strings
// ---------------------------------------------------------------------------------------

/** page/limit as clients mistype them; the API takes strictly decimal integers only. */
const pageValueArb: fc.Arbitrary<Text> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: -2, max: 120 }).map(String) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '99999999999999999999',
      '9007199254740993',
      '2147483648',
      '1e2',
      '1E1',
      '0x10',
      '0b11',
      '0o7',
      '1.5',
      '1.0',
      '-0',
      '+1',
      '01',
      ' 1',
      '1 ',
      '١',
      'NaN',
      'Infinity',
      '',
      '1,2',
      '[]',
    ),
  },
  { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String) },
  { weight: 1, arbitrary: anyText() },
);

const dateValueArb: fc.Arbitrary<Text> = fc.oneof(
  fc.constantFrom(
    '2026-03-01',
    '2026-02-30',
    '2025-12-31',
    '0000-01-01',
    '9999-12-31',
    '2026-3-1',
    '2026-03-01T00:00:00Z',
    '2026-03-01T00:00:00.000+05:30',
    '2026-13-01T00:00:00Z',
    '20260301',
    'yesterday',
    '',
  ),
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10)),
  anyText(),
);

const enumish = (...values: string[]): fc.Arbitrary<Text> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...values) },
    { weight: 1, arbitrary: anyText() },
  );

const NETWORKS = [
  'amazon_associates',
  'awin',
  'impact',
  'cj',
  'rakuten_affiliate',
  'partnerize',
  'rakuten',
  'AWIN',
  'none',
];
const PRESETS = ['default', 'link_in_bio', 'long_form', 'Default', 'link-in-bio', 'linkInBio'];
const CATEGORIES = ['electronics', 'fashion', 'beauty', 'home', 'Fashion', 'toys'];

/** The query fields each list route knows, with values worth trying for each. */
export const QUERY_FIELDS: Record<string, Record<string, fc.Arbitrary<Text>>> = {
  links: {
    page: pageValueArb,
    limit: pageValueArb,
    merchantId: enumish('amazon', 'asos', ''),
    networkId: enumish(...NETWORKS),
    preset: enumish(...PRESETS),
    groupId: anyText(),
    createdAfter: dateValueArb,
    createdBefore: dateValueArb,
    search: enumish('café', '%', '_', "'", '\\', 'amazon'),
    passthrough: enumish('true', 'false', 'TRUE', '1', 'yes', ''),
  },
  clicks: {
    page: pageValueArb,
    limit: pageValueArb,
    linkId: anyText(),
    merchantId: enumish('amazon', 'asos'),
    networkId: enumish(...NETWORKS),
    outcome: enumish('routed', 'fallback', 'passthrough', 'bot'),
    preset: enumish(...PRESETS),
    from: dateValueArb,
    to: dateValueArb,
  },
  summary: { periodStart: dateValueArb, periodEnd: dateValueArb },
  merchants: {
    networkId: enumish(...NETWORKS),
    category: enumish(...CATEGORIES),
    region: enumish('US', 'GB', 'GLOBAL', 'us', 'EU'),
    availableInCountry: countryArb,
  },
  none: {},
};

/** Keys no route knows, and keys that mean something to query parsers and to JavaScript. */
const junkKeyArb: fc.Arbitrary<Text> = fc.oneof(
  fc.constantFrom(
    '__proto__',
    '__proto__[admin]',
    'constructor',
    'constructor[prototype][admin]',
    'prototype',
    'page[]',
    'limit[0]',
    'a[b][c]',
    'toString',
    '',
    'utm_source',
  ),
  hostileString(10),
);

/**
 * Percent-encoded mostly; sometimes as typed, so that Latin-1 letters go as raw bytes, which
 * Node refuses (400) before the app sees them: worth a few, not most.
 */
const rawArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant(false) },
  { weight: 1, arbitrary: fc.constant(true) },
);

type QueryPart = { key: Text; value: Text; raw: boolean } | { garbage: Text };

const queryPartArb = (fields: Record<string, fc.Arbitrary<Text>>): fc.Arbitrary<QueryPart> => {
  const known = Object.entries(fields).map(([key, value]) =>
    fc.record({ key: fc.constant<Text>(key), value, raw: rawArb }),
  );
  return fc.oneof(
    ...known.map((arbitrary) => ({ weight: 4, arbitrary })),
    { weight: 1, arbitrary: fc.record({ key: junkKeyArb, value: anyText(), raw: rawArb }) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.constantFrom<Text>(
            'page=1&page=2',
            'limit=1&limit=100&limit=1e2',
            'page[]=1',
            '%',
            '%zz',
            '%E0%A4%A',
            '%C0%AE',
            '%ED%A0%80',
            '%00',
            '%FF',
            '&&',
            '==',
            '=',
            ';',
            '#x',
            '?',
          ),
          fc.constantFrom<Text>(
            new Filler('a=1&', 3000),
            new Filler('%', 5000),
            new Filler('é', 10_000, 'q='),
          ),
        )
        .map((garbage) => ({ garbage })),
    },
  );
};

/** `?…` for a route whose query fields are `fields`: repeated keys, encodings, garbage. */
export function queryArb(
  fields: Record<string, fc.Arbitrary<Text>>,
  maxParts = 5,
): fc.Arbitrary<Text[]> {
  return fc.array(queryPartArb(fields), { maxLength: maxParts }).map((parts) => {
    if (parts.length === 0) return [];
    const rendered: Text[] = ['?'];
    parts.forEach((part, i) => {
      if (i > 0) rendered.push('&');
      if ('garbage' in part) rendered.push(part.garbage);
      else if (part.raw) rendered.push(part.key, '=', part.value);
      else
        rendered.push(encodeComponent(textOf(part.key)), '=', encodeComponent(textOf(part.value)));
    });
    return rendered;
  });
}

// ---------------------------------------------------------------------------------------
// Path ids
// ---------------------------------------------------------------------------------------

/** Crockford look-alikes a visitor may type for digits (O for 0, I and L for 1). */
const withLookAlikes = (id: string): string => id.replace(/0/g, 'O').replace(/1/g, 'I');

/**
 * An id for `/v1/links/:id` or `/r/:id`: a real one as it is, in other cases or with
 * look-alike letters (another creator's, sometimes), ULID-shaped ids that do not exist or
 * overflow the 48-bit time, and ids that are not ids at all: dot segments, encoded slashes,
 * bad percent-escapes, Unicode, over the router's and the raw front's length limits.
 */
export function idArb(realIds: string[], maxLength = 4096): fc.Arbitrary<Text> {
  const real = fc.constantFrom(...realIds);
  const variants = fc.oneof(
    { weight: 3, arbitrary: real },
    { weight: 2, arbitrary: real.map((id) => id.toLowerCase()) },
    { weight: 2, arbitrary: fc.mixedCase(real) },
    { weight: 1, arbitrary: real.map(withLookAlikes) },
    { weight: 1, arbitrary: real.map((id) => id.slice(0, 25)) },
    { weight: 1, arbitrary: fc.tuple(real, hostileString(3)).map(([id, extra]) => id + extra) },
    {
      weight: 1,
      arbitrary: real.map((id) =>
        encodeComponent(id).replace(/[0-9A-Z]/g, (c) => `%${c.charCodeAt(0).toString(16)}`),
      ),
    },
  );
  const shaped = fc.oneof(
    fc.ulid(),
    fc.stringMatching(/^[0-9A-Z]{26}$/),
    fc.constantFrom(
      '8ZZZZZZZZZZZZZZZZZZZZZZZZZ',
      'ZZZZZZZZZZZZZZZZZZZZZZZZZZ',
      '00000000000000000000000000',
    ),
  );
  const notIds = fc.oneof(
    fc.constantFrom<Text>(
      '..',
      '.',
      '%2e%2e',
      '%2E%2E%2F%2E%2E',
      '..%2F..%2Fetc%2Fpasswd',
      '%2F',
      '%00',
      '%zz',
      '%',
      '%E2%82%AC',
      '%ED%A0%80',
      'é',
      '€',
      '😀',
      'null',
      'undefined',
      '__proto__',
      'constructor',
      '%20',
      'a;b',
      'A'.repeat(64),
      'A'.repeat(65),
      new Filler('A', maxLength),
      new Filler('A', maxLength + 1),
      new Filler('%41', 1500),
    ),
    hostileString(12),
  );
  return fc.oneof(
    { weight: 5, arbitrary: variants },
    { weight: 2, arbitrary: shaped },
    { weight: 2, arbitrary: notIds },
  );
}

// ---------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------

const VALID_COUNTRIES = ['US', 'GB', 'IN', 'DE', 'FR', 'JP', 'BR', 'NG', 'AE', 'SA'];
/**
 * Valid values of the body fields, from the same lists the DTOs validate against; every free
 * text field, nested ones too, sometimes holds a lone surrogate, U+FFFD, a BOM or a
 * non-character (withUnicodeEdges).
 */
const validFields = {
  title: withUnicodeEdges(
    fc.oneof(
      fc.string({ minLength: 1, maxLength: 40 }),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
    ),
  ),
  preset: fc.constantFrom(...ROUTING_PRESET_IDS),
  visitorCountry: fc.constantFrom(...VALID_COUNTRIES),
  deviceType: fc.constantFrom(...DEVICE_TYPES),
  category: fc.constantFrom(...PRODUCT_CATEGORIES),
  networkOverride: fc.oneof(
    fc.constantFrom(...NETWORK_IDS),
    fc.record(
      {
        networkId: fc.constantFrom(...NETWORK_IDS),
        expiresAt: fc
          .date({ min: new Date('2020-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString()),
        reason: withUnicodeEdges(fc.string({ maxLength: 40 })),
      },
      { requiredKeys: ['networkId'] },
    ),
  ),
  utmOverride: fc.record(
    {
      utm_source: withUnicodeEdges(fc.string({ unit: 'grapheme', maxLength: 30 })),
      utm_medium: withUnicodeEdges(fc.constantFrom('social', 'café€', '😀', 'a b', 'a&b=c')),
      utm_campaign: withUnicodeEdges(fc.string({ maxLength: 30 })),
      utm_term: withUnicodeEdges(fc.string({ unit: 'grapheme', maxLength: 10 })),
      utm_content: withUnicodeEdges(fc.string({ maxLength: 10 })),
    },
    { requiredKeys: [] },
  ),
  notes: withUnicodeEdges(fc.string({ unit: 'grapheme', maxLength: 60 })),
  includeCrcTrace: fc.boolean(),
};

/** passthrough: true comes with its required reason. */
const passthroughArb = fc.oneof(
  fc.constant({}),
  fc.constant({ passthrough: false }),
  withUnicodeEdges(fc.string({ minLength: 1, maxLength: 30 })).map((reason) => ({
    passthrough: true,
    passthroughReason: reason,
  })),
);

/**
 * One thing wrong with an otherwise valid body: a field of the wrong kind (or a near miss:
 * an enum value in the wrong case, a [G] field name), a field the DTO does not know, or a
 * required field left out. A body never has more than one, so each validator gets its turn.
 */
type Mutation = { set: string; value: unknown } | { drop: string };

function mutationArb(fields: string[]): fc.Arbitrary<Mutation> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.record({ set: fc.constantFrom(...fields), value: wrongValue() }) },
    {
      weight: 2,
      arbitrary: fc.record({
        set: fc.constantFrom(...fields),
        // Near misses, and NUL, which PostgreSQL refuses in any text column.
        value: fc.constantFrom<unknown>(
          '\u0000',
          'a\u0000b',
          'Default',
          'link-in-bio',
          'Mobile',
          'us',
          'AWIN',
          'Fashion',
          'none',
          '',
        ),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        set: fc.oneof(
          fc.constantFrom(
            'url',
            'country',
            'device',
            'linkId',
            'creatorId',
            'id',
            '__proto__',
            'constructor',
          ),
          hostileString(8),
        ),
        value: wrongValue(),
      }),
    },
    { weight: 1, arbitrary: fc.constantFrom(...fields).map((drop) => ({ drop })) },
  );
}

function applyMutation(
  body: Record<string, unknown>,
  mutation: Mutation | null,
): Record<string, unknown> {
  if (mutation === null) return body;
  if ('drop' in mutation) {
    const { [mutation.drop]: _dropped, ...rest } = body;
    return rest;
  }
  // defineProperty, so that a __proto__ key is an own field (as JSON.parse would make it).
  const copy = { ...body };
  Object.defineProperty(copy, mutation.set, {
    value: mutation.value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return copy;
}

/** Valid bodies half the time, else the same with one mutation. */
function withOneMutation(
  valid: fc.Arbitrary<Record<string, unknown>>,
  fields: string[],
): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(valid, fc.option(mutationArb(fields), { freq: 2, nil: null }))
    .map(([body, mutation]) => applyMutation(body, mutation));
}

/** Some of these fields (each present half the time), with valid values. */
const optionalFields = (
  ...keys: Array<keyof typeof validFields>
): fc.Arbitrary<Record<string, unknown>> =>
  fc.record(
    Object.fromEntries(keys.map((key) => [key, validFields[key] as fc.Arbitrary<unknown>])),
    { requiredKeys: [] },
  );

const CREATE_FIELDS = [
  'originalUrl',
  'title',
  'preset',
  'visitorCountry',
  'deviceType',
  'category',
  'passthrough',
  'passthroughReason',
  'networkOverride',
  'utmOverride',
  'groupId',
  'notes',
];

/** A create-link body: a generated URL (a quarter of them hostile) and some optional fields. */
export const createLinkBodyArb: fc.Arbitrary<Record<string, unknown>> = withOneMutation(
  fc
    .tuple(
      linkUrl,
      optionalFields(
        'title',
        'preset',
        'visitorCountry',
        'deviceType',
        'category',
        'networkOverride',
        'utmOverride',
        'notes',
      ),
      passthroughArb,
    )
    .map(([originalUrl, fields, passthrough]) => ({ originalUrl, ...fields, ...passthrough })),
  CREATE_FIELDS,
);

export const routeBodyArb: fc.Arbitrary<Record<string, unknown>> = withOneMutation(
  fc
    .tuple(
      linkUrl,
      optionalFields('preset', 'visitorCountry', 'deviceType', 'category', 'includeCrcTrace'),
    )
    .map(([originalUrl, fields]) => ({ originalUrl, ...fields })),
  ['originalUrl', 'preset', 'visitorCountry', 'deviceType', 'category', 'includeCrcTrace'],
);

/** A PATCH body: some fields to change; null removes the removable ones. */
export const updateLinkBodyArb: fc.Arbitrary<Record<string, unknown>> = withOneMutation(
  fc
    .tuple(
      optionalFields('title', 'preset', 'category', 'networkOverride', 'utmOverride', 'notes'),
      passthroughArb,
      fc.record(
        {
          networkOverride: fc.constant(null),
          category: fc.constant(null),
          notes: fc.constant(null),
          utmOverride: fc.constant(null),
          groupId: fc.constant(null),
        },
        { requiredKeys: [] },
      ),
    )
    .map(([fields, passthrough, removals]) => ({ ...fields, ...passthrough, ...removals })),
  [
    'title',
    'preset',
    'passthrough',
    'passthroughReason',
    'networkOverride',
    'category',
    'groupId',
    'notes',
    'utmOverride',
    'originalUrl',
  ],
);

export const bulkBodyArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.array(createLinkBodyArb, { maxLength: 5 }).map((links) => ({ links })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(101, 1000).map((n) => ({
      links: Array.from({ length: n }, () => ({
        originalUrl: 'https://www.amazon.com/dp/B0BDHWDR12',
      })),
    })),
  },
  { weight: 1, arbitrary: wrongValue().map((links) => ({ links })) },
);

const BODY_LIMIT_BYTES = 1024 * 1024;

const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'application/JSON',
  'application/json; charset=latin1',
  'application/json;;;',
  'application/vnd.api+json',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  '*/*',
  '',
];

const NOT_JSON = [
  '',
  ' ',
  '{',
  '{"originalUrl":',
  "{'originalUrl':'https://www.amazon.com/dp/B0BDHWDR12'}",
  '{"a":1,}',
  '[1,]',
  '{"a":1}{"b":2}',
  '{"a":1} trailing',
  'undefined',
  'NaN',
  '\ufeff{}',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '{"a":01}',
  '{"a":1e999}',
  '{"originalUrl":"https://www.amazon.com/dp/B0BDHWDR12","originalUrl":"javascript:alert(1)"}',
  'originalUrl=https://www.amazon.com/dp/B0BDHWDR12',
  '<xml/>',
];

/**
 * A body for a JSON route, around the route's plausible bodies: most are JSON objects that
 * reach validation; the rest are the wrong content type, the wrong top-level type, deep
 * nesting (to 6,000 levels), prototype-named keys, text that is not JSON, invalid UTF-8,
 * no body at all, and bodies at and over the 1 MiB limit.
 */
export function bodyArb(plausible: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<BodySpec> {
  const json =
    (contentType: string | null) =>
    (value: unknown): BodySpec => ({ kind: 'json', value, contentType });
  return fc.oneof(
    { weight: 120, arbitrary: plausible.map(json(JSON_TYPE)) },
    {
      weight: 8,
      arbitrary: fc
        .tuple(plausible, fc.constantFrom<string | null>(...CONTENT_TYPES, null))
        .map(([value, type]) => json(type)(value)),
    },
    { weight: 8, arbitrary: wrongValue().map(json(JSON_TYPE)) },
    {
      weight: 8,
      arbitrary: fc.record({
        kind: fc.constant('deep' as const),
        depth: fc.oneof(
          fc.integer({ min: 30, max: 40 }),
          fc.integer({ min: 41, max: 6000 }),
          fc.constant(5000),
        ),
        shape: fc.constantFrom('array' as const, 'object' as const),
        inside: fc.option(plausible, { nil: null }),
      }),
    },
    {
      weight: 8,
      arbitrary: fc.record({
        kind: fc.constant('poisoned' as const),
        key: fc.constantFrom('__proto__' as const, 'constructor' as const, 'prototype' as const),
        payload: fc.oneof(
          fc.constant({ isAdmin: true, plan: 'enterprise' }),
          fc.constant({ prototype: { isAdmin: true } }),
          fc.jsonValue({ maxDepth: 2 }),
        ),
        base: plausible,
        nested: fc.boolean(),
      }),
    },
    {
      weight: 6,
      arbitrary: fc
        .tuple(
          fc.oneof(fc.constantFrom<Text>(...NOT_JSON), anyText()),
          fc.constantFrom<string | null>(JSON_TYPE, JSON_TYPE, 'text/plain', null),
        )
        .map(([text, contentType]): BodySpec => ({ kind: 'text', text, contentType })),
    },
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant('bad-utf8' as const),
        value: plausible,
        bytes: fc.constantFrom<number[]>(
          [0xff],
          [0xc3],
          [0x80],
          [0xc0, 0xae],
          [0xed, 0xa0, 0x80],
          [0xf4, 0x90, 0x80, 0x80],
          [0xfe, 0xff],
        ),
        at: fc.nat(),
      }),
    },
    { weight: 3, arbitrary: fc.constant<BodySpec>({ kind: 'none' }) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.constantFrom(BODY_LIMIT_BYTES - 1, BODY_LIMIT_BYTES, BODY_LIMIT_BYTES + 1),
          fc.integer({ min: BODY_LIMIT_BYTES + 2, max: 3 * BODY_LIMIT_BYTES }),
        )
        .map((bytes): BodySpec => ({ kind: 'oversized', bytes })),
    },
  );
}
