import { ApiPathParameterFrom } from '../openapi/operation-docs.decorators';

/** The documented request examples of the domain routes; each succeeds as shown. */
export const CREATE_DOMAIN_EXAMPLES = {
  withFallback: {
    summary: 'A links subdomain, unknown slugs sent to the home page',
    value: { hostname: 'links.example.com', notFoundUrl: 'https://example.com/' },
  },
};

/** The `{id}` of the routes of one domain: the id that POST /domains answers. */
export const ApiDomainIdParameter = (): MethodDecorator =>
  ApiPathParameterFrom('id', 'A domain id, as POST /domains answers it', {
    operationId: 'DomainsController_create',
    status: 201,
    pointer: '/data/domain/id',
  });
