import * as fc from 'fast-check';
import { forwardVisitorQuery, PROTECTED_QUERY_PARAMS } from './forward-visitor-query';

const ROUTED =
  'https://www.amazon.com/dp/B0BDHWDR12?tag=creator-20&utm_source=linkpilot&utm_medium=affiliate';

describe('PROTECTED_QUERY_PARAMS', () => {
  it('should be the tracking and sub-id parameters the README lists (update both together)', () => {
    expect([...PROTECTED_QUERY_PARAMS].sort()).toEqual(
      [
        // The networks' sub-id parameters (README "Conversions").
        'aff_sub2',
        'affextparam1',
        'ascsubtag',
        'pubref',
        'sid',
        'sub_id',
        'subid',
        'subid1',
        'u1',
        'aff_id',
        'aff_sub',
        'affid',
        'affiliate',
        'affiliate_id',
        'awc',
        'cjdata',
        'cjevent',
        'clickref',
        'cuelinks_subid',
        'irclickid',
        'irgwc',
        'scid',
        'tag',
        'utm_source',
      ].sort(),
    );
  });
});

describe(forwardVisitorQuery.name, () => {
  it.each([
    ['nothing to forward', '', ROUTED],
    ['a new parameter, appended', 'ref_campaign=spring', `${ROUTED}&ref_campaign=spring`],
    ['the affiliate tag, never', 'tag=thief-20', ROUTED],
    ['the affiliate tag in another case, never', 'TAG=thief-20', ROUTED],
    ['another network’s tracking parameter, never', 'awc=thief&irclickid=x', ROUTED],
    ['a parameter the destination sets, never', 'utm_source=thief', ROUTED],
    ['a mix: only the new one', 'tag=x&color=red&utm_medium=y', `${ROUTED}&color=red`],
    ['an encoded value, kept encoded', 'q=caf%C3%A9+latte', `${ROUTED}&q=caf%C3%A9+latte`],
    ['an empty name, dropped', '=x&a=1', `${ROUTED}&a=1`],
    ['a plain name with digits, _ and -', 'ref_id-2=x', `${ROUTED}&ref_id-2=x`],
    ['the QR code marker, never', 'qr=1', ROUTED],
    ['the rest of a QR code scan’s query', 'qr=1&color=red', `${ROUTED}&color=red`],
    ['a qr parameter of another value', 'qr=menu', `${ROUTED}&qr=menu`],
    ...[
      '%20tag=evil',
      'tag%20=evil',
      'tag[]=evil',
      'tag%5B%5D=evil',
      'tag.=evil',
      'tag%00=evil',
      'tag%09=evil',
      'aff.id=evil',
      'affiliate.id=evil',
      'affiliate_id[]=evil',
      'utm.source=evil',
      'AFF_ID[0]=evil',
      'caf%C3%A9=x',
    ].map((query): [string, string, string] => [
      `${query}, a name that is not plain, never`,
      query,
      ROUTED,
    ]),
  ])('should forward %s', (_name, query, expected) => {
    expect(forwardVisitorQuery(ROUTED, query)).toBe(expected);
  });

  it('should append to a destination without a query, before its fragment', () => {
    expect(forwardVisitorQuery('https://shop.example/p/1#reviews', 'a=1')).toBe(
      'https://shop.example/p/1?a=1#reviews',
    );
  });

  it('should never change a parameter the destination sets, nor add a protected one, for any visitor query', () => {
    fc.assert(
      fc.property(fc.string(), (query) => {
        const forwarded = new URL(forwardVisitorQuery(ROUTED, query));
        const routed = new URL(ROUTED);
        for (const [name, value] of routed.searchParams) {
          expect(forwarded.searchParams.getAll(name)).toEqual([value]);
        }
        const added = [...forwarded.searchParams.keys()].filter(
          (name) => !routed.searchParams.has(name),
        );
        expect(added.filter((name) => PROTECTED_QUERY_PARAMS.has(name.toLowerCase()))).toEqual([]);
        expect(added.filter((name) => !/^[A-Za-z0-9_-]+$/.test(name))).toEqual([]);
        expect(forwarded.href.startsWith(ROUTED)).toBe(true);
      }),
    );
  });
});
