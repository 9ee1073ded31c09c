import type {
  ParameterObject,
  PathItemObject,
  PathsObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ErrorCode } from '../common/errors/error-code';
import { ERROR_ENVELOPE_SCHEMA } from './error-answers';
import { buildErrorExample } from './error-examples';
import { PARAMETER_SOURCE_EXTENSION, ParameterSource } from './parameter-links';

const LINK_ID_SOURCE: ParameterSource = {
  operationId: 'LinksController_create',
  status: 201,
  pointer: '/data/link/linkId',
};

/**
 * The routes served outside /v1 by Fastify itself (the edge redirect, RedirectFronts; the
 * probes, probe-routes.ts), so Nest's scanner never sees them: described here by hand. Each
 * sits on the site root, not the document's /v1 server.
 */
const SITE_ROOT = [{ url: '/', description: 'The site root (outside /v1)' }];

const READINESS_CHECK = { type: 'string', enum: ['ok', 'unreachable', 'pending'] };

const errorContent = (...codes: ErrorCode[]) => ({
  'application/json': {
    schema: { $ref: `#/components/schemas/${ERROR_ENVELOPE_SCHEMA}` },
    examples: Object.fromEntries(codes.map((code) => [code, buildErrorExample(code)])),
  },
});

const URI_TOO_LONG_ANSWER = {
  description: 'Request path and query over 8,192 characters: URI_TOO_LONG',
  content: errorContent(ErrorCode.URI_TOO_LONG),
};

const REDIRECT: PathItemObject = {
  servers: SITE_ROOT,
  get: {
    operationId: 'EdgeRedirect_redirect',
    tags: ['redirect'],
    summary: 'The click: 302 to where this visitor should buy',
    description:
      'The link a creator shares (`linkpilotUrl`). Routes the visitor by the edge headers ' +
      '(`CF-IPCountry`, `X-Bot-Score`, believed from trusted proxies only) and the ' +
      'User-Agent, counts the click and answers 302 with the routed URL. Bots, crawlers, ' +
      'link-preview agents and HEAD get the original URL, uncounted: a command-line client ' +
      'such as curl is treated as a bot, so test with a browser User-Agent to see the ' +
      'affiliate URL. The visitor query is appended when the link has `forwardQuery`. No ' +
      'authentication; browsers (and Swagger UI) follow the redirect to the merchant.',
    security: [],
    parameters: [
      // The vendor extension becomes an OpenAPI link on POST /links (parameter-links.ts).
      {
        name: 'linkId',
        in: 'path',
        required: true,
        description: 'The linkId that POST /v1/links answers',
        schema: { type: 'string' },
        [PARAMETER_SOURCE_EXTENSION]: LINK_ID_SOURCE,
      } as ParameterObject,
    ],
    responses: {
      '302': {
        description: 'Location: the routed URL (or the original one, see above)',
        headers: { Location: { schema: { type: 'string', format: 'uri' } } },
      },
      '404': {
        description: 'No such link, or a deleted one',
        content: errorContent(ErrorCode.LINK_NOT_FOUND),
      },
      '429': {
        description:
          'Over an edge limit (per address or per creator): the original URL in Location ' +
          'and in a small HTML page, with Retry-After; not counted',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
      '503': {
        description:
          'PostgreSQL was needed (a link not cached yet) and did not answer (Retry-After)',
        content: errorContent(ErrorCode.DATABASE_UNAVAILABLE),
      },
      default: {
        description: 'An unexpected error: 500 INTERNAL_ERROR',
        content: errorContent(ErrorCode.INTERNAL_ERROR),
      },
    },
  },
};

const LIVENESS: PathItemObject = {
  servers: SITE_ROOT,
  get: {
    operationId: 'Probes_livez',
    tags: ['health'],
    summary: 'Liveness: 200 whenever the process answers HTTP',
    description:
      'For orchestrators and the Dockerfile HEALTHCHECK. Checks nothing else, so a slow ' +
      'database never gets a healthy process restarted. Plain JSON, no envelope, no ' +
      'authentication.',
    security: [],
    responses: {
      '200': {
        description: 'The process answers',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['status'],
              properties: { status: { type: 'string', enum: ['ok'] } },
            },
            example: { status: 'ok' },
          },
        },
      },
      '414': URI_TOO_LONG_ANSWER,
    },
  },
};

const READINESS_BODY = {
  type: 'object',
  required: ['status', 'checks'],
  properties: {
    status: { type: 'string', enum: ['ok', 'not_ready'] },
    checks: {
      type: 'object',
      required: ['database', 'migrations', 'kv'],
      properties: { database: READINESS_CHECK, migrations: READINESS_CHECK, kv: READINESS_CHECK },
    },
  },
};

const READINESS: PathItemObject = {
  servers: SITE_ROOT,
  get: {
    operationId: 'Probes_readyz',
    tags: ['health'],
    summary: 'Readiness: 200 when PostgreSQL, the migrations and the key-value store are ready',
    description:
      'For load balancers: 503 naming the failing check while traffic should go elsewhere ' +
      '(PostgreSQL or the key-value store unreachable, migrations pending). Plain JSON, no ' +
      'envelope, no authentication.',
    security: [],
    responses: {
      '200': {
        description: 'Ready',
        content: {
          'application/json': {
            schema: READINESS_BODY,
            example: { status: 'ok', checks: { database: 'ok', migrations: 'ok', kv: 'ok' } },
          },
        },
      },
      '414': URI_TOO_LONG_ANSWER,
      '503': {
        description: 'Not ready: the failing checks say why',
        content: {
          'application/json': {
            schema: READINESS_BODY,
            example: {
              status: 'not_ready',
              checks: { database: 'ok', migrations: 'pending', kv: 'ok' },
            },
          },
        },
      },
    },
  },
};

/** Adds the routes outside /v1 to the document's paths. */
export function addOutsideApiPaths(paths: PathsObject): void {
  paths['/r/{linkId}'] = REDIRECT;
  paths['/livez'] = LIVENESS;
  paths['/readyz'] = READINESS;
}
