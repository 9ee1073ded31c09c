import { ApiPathParameterFrom } from '../openapi/operation-docs.decorators';

/**
 * The documented request examples of the links routes: each succeeds as shown against the
 * seeded knowledge base (amazon.com's US storefront, ASOS's global one with the awin and
 * partnerize networks), as test/e2e/openapi-examples.e2e-spec.ts checks.
 */
export const CREATE_LINK_EXAMPLES = {
  amazon: {
    summary: 'An Amazon product for US mobile visitors, with a campaign tag',
    value: {
      originalUrl: 'https://www.amazon.com/dp/B09B8V1LZ3',
      title: 'Echo Dot (5th generation)',
      visitorCountry: 'US',
      deviceType: 'mobile',
      category: 'electronics',
      utmOverride: { utm_campaign: 'spring-video' },
    },
  },
  pinnedNetwork: {
    summary: 'An ASOS product pinned to a network the merchant offers (awin)',
    value: {
      originalUrl: 'https://www.asos.com/prd/204351234',
      networkOverride: 'awin',
      notes: 'Pinned while the awin campaign runs',
    },
  },
  redirectRules: {
    summary: 'Redirect rules: German speakers on iOS, then a newsletter campaign by its query',
    value: {
      originalUrl: 'https://www.amazon.com/dp/B09B8V1LZ3',
      rules: [
        {
          destinationUrl: 'https://www.amazon.com/dp/B0BDHWDR12',
          devices: ['ios'],
          languages: ['de'],
        },
        {
          destinationUrl: 'https://www.asos.com/prd/204351234',
          query: { param: 'src', value: 'newsletter' },
          startsAt: '2026-12-01T00:00:00Z',
          endsAt: '2026-12-27T00:00:00Z',
          fromTime: '18:00',
          toTime: '23:00',
        },
      ],
    },
  },
  limitedOffer: {
    summary: 'A limited offer: it ends at an instant or after 1,000 clicks, then sends visitors on',
    value: {
      originalUrl: 'https://www.amazon.com/dp/B09B8V1LZ3',
      expiresAt: '2099-12-31T23:59:59Z',
      maxClicks: 1000,
      expiredUrl: 'https://www.amazon.com/dp/B0CHX1W1XY',
    },
  },
};

export const BULK_CREATE_LINKS_EXAMPLES = {
  twoMerchants: {
    summary: 'Two products of two merchants in one request',
    value: {
      links: [
        { originalUrl: 'https://www.amazon.com/dp/B09B8V1LZ3', title: 'Echo Dot (5th generation)' },
        { originalUrl: 'https://www.asos.com/prd/204351234', networkOverride: 'partnerize' },
      ],
    },
  },
};

export const UPDATE_LINK_EXAMPLES = {
  retitle: {
    summary: 'A new title and notes, and the visitor query forwarded',
    value: {
      title: 'Echo Dot, spring offer',
      notes: 'Shown in the March video',
      forwardQuery: true,
    },
  },
  replaceRules: {
    summary: 'Replace the redirect rules: visitors in Germany and Austria get another product',
    value: {
      rules: [{ destinationUrl: 'https://www.amazon.com/dp/B0BDHWDR12', countries: ['DE', 'AT'] }],
    },
  },
  capClicks: {
    summary: 'Cap the link at 500 counted clicks and drop its expiry (410 once capped)',
    value: { maxClicks: 500, expiresAt: null, expiredUrl: null },
  },
};

/** The `{id}` of the routes of one link: the linkId that POST /links answers. */
export const ApiLinkIdParameter = (): MethodDecorator =>
  ApiPathParameterFrom('id', 'A linkId, as POST /links answers it', {
    operationId: 'LinksController_create',
    status: 201,
    pointer: '/data/link/linkId',
  });
