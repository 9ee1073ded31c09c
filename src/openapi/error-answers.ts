import type { OpenAPIObject } from '@nestjs/swagger';
import type {
  OperationObject,
  ResponseObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/** The error envelope's component name (`{success: false, error: ApiErrorBody}`). */
export const ERROR_ENVELOPE_SCHEMA = 'ApiErrorEnvelope';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** What each error status means on this API, with the codes it carries (error-code.ts). */
const ERROR_ANSWERS: Record<number, string> = {
  400: 'Invalid input: VALIDATION_ERROR (details name each field), INVALID_URL, or a routing refusal (NO_ROUTING_CANDIDATES, NETWORK_OVERRIDE_UNAVAILABLE, ...)',
  401: 'Missing, malformed, unknown or revoked API key: UNAUTHORIZED',
  403: "The key's plan or address may not call this: PUBLISHER_TIER_REQUIRED, ENTERPRISE_TIER_REQUIRED, IP_NOT_ALLOWLISTED, TEST_KEY_REQUIRED",
  404: 'No such resource for this key and environment: LINK_NOT_FOUND, MERCHANT_NOT_FOUND, NOT_FOUND',
  409: 'The Idempotency-Key is held by a request still running: IDEMPOTENCY_KEY_IN_USE',
  413: 'Request body over 1 MiB: PAYLOAD_TOO_LARGE',
  414: 'Request path and query over 8,192 characters: URI_TOO_LONG',
  422: 'The Idempotency-Key was used with another request: IDEMPOTENCY_KEY_REUSED',
  429: 'Rate limit (RATE_LIMIT_EXCEEDED, with Retry-After and X-RateLimit-*) or too many failed authentications from this address',
  503:
    'A backing store or data source is unavailable: KV_ERROR, FX_DATA_UNAVAILABLE, ' +
    'DATABASE_UNAVAILABLE; or a statement ran past its timeout: DATABASE_STATEMENT_TIMEOUT',
};

/**
 * Adds to every operation the error answers it can give, each with the error envelope, by the
 * rules every route shares: authenticated routes answer 401, 403, 429 and 503 (the key, plan,
 * rate limit and key-value store are checked on each); routes with query parameters or a
 * body answer 400; routes with a path parameter answer 404; routes taking an Idempotency-Key answer 409
 * and 422; routes with a body answer 413; every route answers 414. An
 * answer a route declares itself is kept. Routes without a security requirement get an
 * explicit empty one (no authentication). Mutates and returns the document.
 */
export function addErrorAnswers(document: OpenAPIObject): OpenAPIObject {
  document.components = document.components ?? {};
  document.components.schemas = {
    ...document.components.schemas,
    [ERROR_ENVELOPE_SCHEMA]: {
      type: 'object',
      required: ['success', 'error'],
      properties: {
        success: { type: 'boolean', enum: [false] },
        error: { $ref: '#/components/schemas/ApiErrorBody' },
      },
    },
  };
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation !== undefined) {
        addOperationErrors(path, operation);
      }
    }
  }
  return document;
}

function addOperationErrors(path: string, operation: OperationObject): void {
  const isAuthenticated = (operation.security ?? []).length > 0;
  if (!isAuthenticated) {
    operation.security = [];
  }
  // Path parameters are looked up as given (an unknown id is a 404), never refused as invalid.
  const hasInput =
    (operation.parameters ?? []).some(
      (parameter) => 'in' in parameter && parameter.in !== 'path',
    ) || operation.requestBody !== undefined;
  const isIdempotent = (operation.parameters ?? []).some(
    (parameter) => 'name' in parameter && parameter.name.toLowerCase() === 'idempotency-key',
  );
  const statuses = [
    hasInput ? 400 : null,
    isAuthenticated ? 401 : null,
    isAuthenticated ? 403 : null,
    path.includes('{') ? 404 : null,
    isIdempotent ? 409 : null,
    operation.requestBody !== undefined ? 413 : null,
    414,
    isIdempotent ? 422 : null,
    isAuthenticated ? 429 : null,
    isAuthenticated ? 503 : null,
  ].filter((status): status is number => status !== null);
  for (const status of statuses) {
    operation.responses[String(status)] ??= errorAnswer(ERROR_ANSWERS[status]);
  }
}

function errorAnswer(description: string): ResponseObject {
  return {
    description,
    content: {
      'application/json': { schema: { $ref: `#/components/schemas/${ERROR_ENVELOPE_SCHEMA}` } },
    },
  };
}
