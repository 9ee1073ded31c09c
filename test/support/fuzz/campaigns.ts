import fc from 'fast-check';
import {
  authArb,
  bodyArb,
  botScoreArb,
  bulkBodyArb,
  clientHeadersArb,
  countryArb,
  createLinkBodyArb,
  forwardedProtoArb,
  idArb,
  originArb,
  QUERY_FIELDS,
  queryArb,
  quietHeadersArb,
  routeBodyArb,
  updateLinkBodyArb,
  userAgentArb,
} from './arbitraries';
import type { FuzzFixture, FuzzKey } from './fixture';
import { AuthSpec, BodySpec, FuzzRequest, JSON_TYPE } from './model';
import { rawSpecArb, RawSpec } from './raw';
import type { Campaign } from './runner';
import { linkUrl } from './urls';
import { anyText, Text } from './values';
import type { Exchange } from './wire';

/** Requests sent concurrently per property run; shrinking narrows a failing batch down. */
const MAX_BATCH = 64;

/**
 * Every route of the API (from the controllers under src/, all under /v1), the edge redirect
 * and the OpenAPI document: a method, a template for the statistics, and generators of a
 * target (path and query) and a body that fit the route.
 */
interface RouteSpec {
  method: string;
  template: string;
  target: fc.Arbitrary<Text[]>;
  body: fc.Arbitrary<BodySpec>;
}

const NO_BODY = fc.constant<BodySpec>({ kind: 'none' });

function routeCatalogue(fixture: FuzzFixture): RouteSpec[] {
  const linkIds = idArb([...fixture.linkIds, ...fixture.legacyLinkIds]);
  const merchantIds = idArb(fixture.merchantIds);
  const withQuery = (path: string, fields: Record<string, fc.Arbitrary<Text>>) =>
    queryArb(fields).map((query): Text[] => [path, ...query]);
  const withId = (prefix: string, ids: fc.Arbitrary<Text>, fields = QUERY_FIELDS.none) =>
    fc.tuple(ids, queryArb(fields, 2)).map(([id, query]): Text[] => [prefix, id, ...query]);
  const get = (template: string, target: fc.Arbitrary<Text[]>): RouteSpec => ({
    method: 'GET',
    template,
    target,
    body: NO_BODY,
  });
  return [
    get('/v1/health', withQuery('/v1/health', QUERY_FIELDS.none)),
    get('/v1/account', withQuery('/v1/account', QUERY_FIELDS.none)),
    get('/v1/fx-rates', withQuery('/v1/fx-rates', QUERY_FIELDS.none)),
    get('/v1/merchants', withQuery('/v1/merchants', QUERY_FIELDS.merchants)),
    get('/v1/merchants/:id', withId('/v1/merchants/', merchantIds)),
    get('/v1/links', withQuery('/v1/links', QUERY_FIELDS.links)),
    {
      method: 'POST',
      template: '/v1/links',
      target: withQuery('/v1/links', QUERY_FIELDS.none),
      body: bodyArb(createLinkBodyArb),
    },
    {
      method: 'POST',
      template: '/v1/links/bulk',
      target: withQuery('/v1/links/bulk', QUERY_FIELDS.none),
      body: bodyArb(bulkBodyArb),
    },
    get('/v1/links/:id', withId('/v1/links/', linkIds)),
    {
      method: 'PATCH',
      template: '/v1/links/:id',
      target: withId('/v1/links/', linkIds),
      body: bodyArb(updateLinkBodyArb),
    },
    // Not the legacy rows: they must stay for the redirect campaign to click.
    {
      method: 'DELETE',
      template: '/v1/links/:id',
      target: withId('/v1/links/', idArb(fixture.linkIds)),
      body: NO_BODY,
    },
    {
      method: 'POST',
      template: '/v1/route',
      target: withQuery('/v1/route', QUERY_FIELDS.none),
      body: bodyArb(routeBodyArb),
    },
    get('/v1/analytics/clicks', withQuery('/v1/analytics/clicks', QUERY_FIELDS.clicks)),
    get('/v1/analytics/summary', withQuery('/v1/analytics/summary', QUERY_FIELDS.summary)),
    get('/r/:id', withId('/r/', linkIds, QUERY_FIELDS.links)),
    { ...get('/r/:id', withId('/r/', linkIds)), method: 'HEAD' },
    get('/docs-json', withQuery('/docs-json', QUERY_FIELDS.none)),
    get('/docs', withQuery('/docs', QUERY_FIELDS.none)),
    get(
      '(unknown path)',
      fc
        .constantFrom(
          '/',
          '/v1',
          '/v1/',
          '/v2/links',
          '/v1/links/',
          '/V1/LINKS',
          '//v1//links',
          '/v1/links/bulk/x',
          '/v1/nope',
          '/r',
          '/r/',
        )
        .map((path): Text[] => [path]),
    ),
  ];
}

const OTHER_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];

/**
 * A request to `route`: its own method mostly, sometimes another (`* <template>` in the
 * statistics) or a CORS preflight; a HEAD never carries a body.
 */
function requestArb(
  route: RouteSpec,
  auth: fc.Arbitrary<AuthSpec>,
  headers: fc.Arbitrary<Record<string, Text>>,
  otherMethodWeight: number,
): fc.Arbitrary<FuzzRequest> {
  const method = fc.oneof(
    { weight: 10, arbitrary: fc.constant(route.method) },
    { weight: otherMethodWeight, arbitrary: fc.constantFrom(...OTHER_METHODS) },
  );
  return fc
    .record({
      method,
      target: route.target,
      auth,
      headers,
      body: route.body,
      preflight: fc.boolean(),
    })
    .map(({ method, target, auth, headers, body, preflight }): FuzzRequest => {
      const extra: Record<string, Text> =
        method === 'OPTIONS' && preflight ? { 'access-control-request-method': 'POST' } : {};
      return {
        route: method === route.method ? `${method} ${route.template}` : `* ${route.template}`,
        method,
        target,
        auth,
        headers: { ...headers, ...extra },
        body: method === 'HEAD' ? { kind: 'none' } : body,
      };
    });
}

function requestsCampaign(
  name: string,
  requests: fc.Arbitrary<FuzzRequest>,
): Campaign<FuzzRequest[]> {
  return {
    name,
    // size 'max': batches of any length up to MAX_BATCH (fast-check's default size keeps
    // arrays near 10, too few concurrent requests to keep the server busy).
    arbitrary: fc.array(requests, { minLength: 1, maxLength: MAX_BATCH, size: 'max' }),
    countRequests: (batch) => batch.length,
    execute: async (batch, io) => {
      await Promise.all(batch.map((request) => io.send(request)));
    },
  };
}

/** Any route, any method, any header, any body: the broad sweep. */
export function everyRouteCampaign(fixture: FuzzFixture): Campaign<FuzzRequest[]> {
  const auth = authArb(fixture, 4);
  const routes = routeCatalogue(fixture).map((route) =>
    requestArb(route, auth, clientHeadersArb, 2),
  );
  return requestsCampaign('every route', fc.oneof(...routes));
}

/** JSON bodies on the write routes, with a working key so they reach the validators. */
export function bodiesCampaign(fixture: FuzzFixture): Campaign<FuzzRequest[]> {
  const auth = authArb(fixture, 30);
  const path = (text: string) => fc.constant<Text[]>([text]);
  const writes: RouteSpec[] = [
    {
      method: 'POST',
      template: '/v1/links',
      target: path('/v1/links'),
      body: bodyArb(createLinkBodyArb),
    },
    {
      method: 'POST',
      template: '/v1/links/bulk',
      target: path('/v1/links/bulk'),
      body: bodyArb(bulkBodyArb),
    },
    {
      method: 'POST',
      template: '/v1/route',
      target: path('/v1/route'),
      body: bodyArb(routeBodyArb),
    },
    {
      method: 'PATCH',
      template: '/v1/links/:id',
      target: fc.constantFrom(...fixture.linkIds).map((id): Text[] => ['/v1/links/', id]),
      body: bodyArb(updateLinkBodyArb),
    },
  ];
  // PATCH with the owner's key, so that valid bodies reach the update itself.
  const ownLinkPatch = fc
    .tuple(
      fc.constantFrom(
        ...fixture.workhorseKeys.filter((key) => ownLinksOf(fixture, key).length > 0),
      ),
      fc.nat(),
      bodyArb(updateLinkBodyArb),
      quietHeadersArb,
    )
    .map(([key, n, body, headers]): FuzzRequest => {
      const own = ownLinksOf(fixture, key);
      return {
        route: 'PATCH /v1/links/:id (own link)',
        method: 'PATCH',
        target: ['/v1/links/', own[n % own.length]],
        auth: { kind: 'key', key, scheme: 'Bearer', gap: ' ', suffix: '' },
        headers,
        body,
      };
    });
  return requestsCampaign(
    'bodies',
    fc.oneof(...writes.map((route) => requestArb(route, auth, quietHeadersArb, 0)), ownLinkPatch),
  );
}

const ownLinksOf = (fixture: FuzzFixture, key: FuzzKey): string[] =>
  fixture.linksByCreator[key.creatorId] ?? [];

/** Query strings on every route that reads them, and junk queries on those that do not. */
export function queriesCampaign(fixture: FuzzFixture): Campaign<FuzzRequest[]> {
  const auth = authArb(fixture, 30);
  const lists: Array<[string, Record<string, fc.Arbitrary<Text>>]> = [
    ['/v1/links', QUERY_FIELDS.links],
    ['/v1/analytics/clicks', QUERY_FIELDS.clicks],
    ['/v1/analytics/summary', QUERY_FIELDS.summary],
    ['/v1/merchants', QUERY_FIELDS.merchants],
    ['/v1/account', QUERY_FIELDS.links],
    ['/v1/fx-rates', QUERY_FIELDS.links],
    ['/v1/health', QUERY_FIELDS.links],
  ];
  const routes = lists.map(([path, fields]) =>
    requestArb(
      {
        method: 'GET',
        template: `${path}?…`,
        target: queryArb(fields, 8).map((q): Text[] => [path, ...q]),
        body: NO_BODY,
      },
      auth,
      quietHeadersArb,
      1,
    ),
  );
  return requestsCampaign('queries', fc.oneof(...routes));
}

/** Ids in paths: the link routes, merchants, and clicks on /r/ with visitor headers. */
export function pathIdsCampaign(fixture: FuzzFixture): Campaign<FuzzRequest[]> {
  const auth = authArb(fixture, 20);
  const ids = idArb([...fixture.linkIds, ...fixture.legacyLinkIds]);
  const route = (
    method: string,
    template: string,
    prefix: string,
    idArbitrary: fc.Arbitrary<Text>,
    body = NO_BODY,
  ): RouteSpec => ({
    method,
    template,
    target: idArbitrary.map((id): Text[] => [prefix, id]),
    body,
  });
  const routes: RouteSpec[] = [
    route('GET', '/v1/links/:id', '/v1/links/', ids),
    route(
      'PATCH',
      '/v1/links/:id',
      '/v1/links/',
      ids,
      fc.constant<BodySpec>({ kind: 'json', value: { title: 'renamed' }, contentType: JSON_TYPE }),
    ),
    route('DELETE', '/v1/links/:id', '/v1/links/', idArb(fixture.linkIds.slice(0, 1))),
    route('GET', '/v1/merchants/:id', '/v1/merchants/', idArb(fixture.merchantIds)),
    route('GET', '/r/:id', '/r/', ids),
    route('HEAD', '/r/:id', '/r/', ids),
  ];
  return requestsCampaign(
    'path ids',
    fc.oneof(...routes.map((r) => requestArb(r, auth, clientHeadersArb, 0))),
  );
}

// ---------------------------------------------------------------------------------------
// Redirects: create links from generated URLs, then click them
// ---------------------------------------------------------------------------------------

interface ClickSpec {
  method: 'GET' | 'HEAD';
  /** How the visitor spells the id: as issued, lower case, mixed case, look-alike letters. */
  spelling: 'exact' | 'lower' | 'mixed' | 'look-alike';
  headers: Record<string, Text>;
  query: Text[];
}

type RedirectTarget = { create: Record<string, unknown>; key: FuzzKey } | { legacy: number };

interface RedirectScenario {
  target: RedirectTarget;
  clicks: ClickSpec[];
}

const clickHeadersArb: fc.Arbitrary<Record<string, Text>> = fc.record(
  {
    'x-forwarded-for': fc.ipV4(),
    'user-agent': userAgentArb,
    'cf-ipcountry': countryArb,
    'x-bot-score': botScoreArb,
    origin: originArb,
    'x-forwarded-proto': forwardedProtoArb,
  },
  { requiredKeys: ['x-forwarded-for'] },
);

const clickArb: fc.Arbitrary<ClickSpec> = fc.record({
  method: fc.constantFrom('GET' as const, 'GET' as const, 'HEAD' as const),
  spelling: fc.constantFrom(
    'exact' as const,
    'exact' as const,
    'lower' as const,
    'mixed' as const,
    'look-alike' as const,
  ),
  headers: clickHeadersArb,
  query: fc.oneof(
    { weight: 4, arbitrary: fc.constant<Text[]>([]) },
    { weight: 1, arbitrary: queryArb({ utm_source: anyText(), kw: anyText() }, 3) },
  ),
});

/**
 * A link as a creator makes it: a generated URL (a quarter of them hostile, to be refused),
 * and now and then a Unicode title, UTM values that end up in the routed URL, passthrough.
 */
const linkBodyArb: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    linkUrl,
    fc.record(
      {
        title: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
        utmOverride: fc.record(
          {
            utm_source: fc.string({ unit: 'grapheme', maxLength: 20 }),
            utm_campaign: fc.constantFrom('café€', 'été 2026', '😀', 'a&b=c', 'a b', '%41'),
          },
          { requiredKeys: [] },
        ),
        preset: fc.constantFrom('default', 'link_in_bio', 'long_form'),
        visitorCountry: fc.constantFrom('US', 'GB', 'IN', 'DE'),
      },
      { requiredKeys: [] },
    ),
    fc.constantFrom({}, {}, { passthrough: true, passthroughReason: 'raison: café' }),
  )
  .map(([originalUrl, fields, passthrough]) => ({ originalUrl, ...fields, ...passthrough }));

export function redirectsCampaign(fixture: FuzzFixture): Campaign<RedirectScenario[]> {
  const target: fc.Arbitrary<RedirectTarget> = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.record({ create: linkBodyArb, key: fc.constantFrom(...fixture.workhorseKeys) }),
    },
    {
      weight: 1,
      arbitrary: fc.nat({ max: fixture.legacyLinkIds.length - 1 }).map((legacy) => ({ legacy })),
    },
  );
  const scenario = fc.record({
    target,
    clicks: fc.array(clickArb, { minLength: 1, maxLength: 6 }),
  });
  return {
    name: 'redirects',
    arbitrary: fc.array(scenario, { minLength: 1, maxLength: 12, size: 'max' }),
    countRequests: (batch) =>
      batch.reduce((sum, s) => sum + ('create' in s.target ? 1 : 0) + s.clicks.length, 0),
    execute: async (batch, io) => {
      const linkIds = await Promise.all(
        batch.map((s) => linkIdFor(s.target, fixture, (r) => io.send(r))),
      );
      if (io.signal.aborted) return;
      await Promise.all(
        batch.flatMap((s, i) => {
          const linkId = linkIds[i];
          const legacy = 'legacy' in s.target;
          return linkId === null
            ? []
            : s.clicks.map((click) => io.send(clickRequest(linkId, click, legacy)));
        }),
      );
    },
  };
}

async function linkIdFor(
  target: RedirectTarget,
  fixture: FuzzFixture,
  send: (request: FuzzRequest) => Promise<Exchange>,
): Promise<string | null> {
  if ('legacy' in target) return fixture.legacyLinkIds[target.legacy];
  const exchange = await send({
    route: 'POST /v1/links (for clicks)',
    method: 'POST',
    target: ['/v1/links'],
    auth: { kind: 'key', key: target.key, scheme: 'Bearer', gap: ' ', suffix: '' },
    headers: { 'x-forwarded-for': '198.18.1.1' },
    body: { kind: 'json', value: target.create, contentType: JSON_TYPE },
  });
  if (exchange.kind !== 'answer' || exchange.status !== 201) return null;
  try {
    const linkId = (
      JSON.parse(exchange.body.toString('utf8')) as { data?: { link?: { linkId?: unknown } } }
    ).data?.link?.linkId;
    return typeof linkId === 'string' ? linkId : null;
  } catch {
    return null;
  }
}

function spell(linkId: string, spelling: ClickSpec['spelling']): string {
  switch (spelling) {
    case 'exact':
      return linkId;
    case 'lower':
      return linkId.toLowerCase();
    case 'mixed':
      return [...linkId].map((c, i) => (i % 2 === 0 ? c.toLowerCase() : c)).join('');
    case 'look-alike':
      return linkId.replace(/0/g, 'O').replace(/1/g, 'l');
  }
}

function clickRequest(linkId: string, click: ClickSpec, legacy: boolean): FuzzRequest {
  return {
    route: `${click.method} /r/:id (${legacy ? 'legacy row' : 'created'})`,
    method: click.method,
    target: ['/r/', spell(linkId, click.spelling), ...click.query],
    auth: { kind: 'none' },
    headers: click.headers,
    body: { kind: 'none' },
  };
}

// ---------------------------------------------------------------------------------------
// Raw bytes
// ---------------------------------------------------------------------------------------

export function rawCampaign(fixture: FuzzFixture): Campaign<RawSpec[]> {
  return {
    name: 'raw http',
    arbitrary: fc.array(rawSpecArb(fixture), { minLength: 1, maxLength: 16 }),
    countRequests: (batch) => batch.length,
    execute: async (batch, io) => {
      await Promise.all(batch.map((spec) => io.sendRaw(spec)));
    },
  };
}
