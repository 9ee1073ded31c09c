import type { OpenAPIObject } from '@nestjs/swagger';
import type {
  ExampleObject,
  OperationObject,
  ResponseObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ErrorCode } from '../common/errors/error-code';
import { buildErrorExample } from './error-examples';

/** The error envelope's component name (`{success: false, error: ApiErrorBody}`). */
export const ERROR_ENVELOPE_SCHEMA = 'ApiErrorEnvelope';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** What each error status means on this API; the codes follow in each description. */
const ERROR_MEANINGS: Record<number, string> = {
  400: 'Invalid input (VALIDATION_ERROR details name each field)',
  401: 'Missing, malformed, unknown or revoked API key',
  403: "The key's plan or address may not call this",
  404: 'No such resource for this key and environment',
  409: 'The Idempotency-Key is held by a request still running',
  413: 'Request body over 1 MiB',
  414: 'Request path and query over 8,192 characters',
  422: 'The Idempotency-Key was used with another request',
  429: 'Rate limit (with Retry-After and X-RateLimit-*), or too many failed authentications from this address',
  503: 'A backing store is unavailable, or a statement ran past its timeout (Retry-After)',
};

/**
 * The codes every route with that status answers (the shared checks: validation, the key,
 * its plan and address, the rate limit, the stores); a route declares its own beside them
 * with ApiErrorCodes.
 */
const SHARED_CODES: Record<number, ErrorCode[]> = {
  400: [ErrorCode.VALIDATION_ERROR],
  401: [ErrorCode.UNAUTHORIZED],
  403: [ErrorCode.PUBLISHER_TIER_REQUIRED, ErrorCode.IP_NOT_ALLOWLISTED],
  // A route with a path id names its own (LINK_NOT_FOUND, ...); NOT_FOUND when it does not.
  404: [],
  409: [ErrorCode.IDEMPOTENCY_KEY_IN_USE],
  413: [ErrorCode.PAYLOAD_TOO_LARGE],
  414: [ErrorCode.URI_TOO_LONG],
  422: [ErrorCode.IDEMPOTENCY_KEY_REUSED],
  429: [ErrorCode.RATE_LIMIT_EXCEEDED],
  503: [ErrorCode.KV_ERROR, ErrorCode.DATABASE_UNAVAILABLE, ErrorCode.DATABASE_STATEMENT_TIMEOUT],
};

/**
 * Adds to every operation the error answers it can give, each with the error envelope, by the
 * rules every route shares: authenticated routes answer 401, 403, 429 and 503 (the key, plan,
 * rate limit and key-value store are checked on each); routes with query parameters or a
 * body answer 400; routes with a path parameter answer 404; routes taking an Idempotency-Key answer 409
 * and 422; routes with a body answer 413; every route answers 414. Each answer carries an
 * example per code: the route's own (ApiErrorCodes) and the shared ones (SHARED_CODES). Routes without a security requirement get an
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
  // Error answers a route declares beyond these rules (ApiErrorCodes) get the same treatment.
  for (const status of Object.keys(operation.responses).map(Number)) {
    if (status >= 400 && !statuses.includes(status)) statuses.push(status);
  }
  for (const status of statuses) {
    const declared = operation.responses[String(status)] as ResponseObject | undefined;
    operation.responses[String(status)] = errorAnswer(status, declared);
  }
}

/**
 * The answer of one error status: the route's own codes (ApiErrorCodes) and the shared ones,
 * an example each, described by the status's meaning and the codes.
 */
function errorAnswer(status: number, declared: ResponseObject | undefined): ResponseObject {
  const examples: Record<string, ExampleObject> = {
    ...(declared?.content?.['application/json']?.examples as Record<string, ExampleObject>),
  };
  for (const code of SHARED_CODES[status] ?? []) {
    examples[code] ??= buildErrorExample(code);
  }
  if (Object.keys(examples).length === 0) {
    examples[ErrorCode.NOT_FOUND] = buildErrorExample(ErrorCode.NOT_FOUND);
  }
  const codes = Object.keys(examples);
  return {
    description: `${ERROR_MEANINGS[status] ?? 'Error'}: ${codes.join(', ')}`,
    content: {
      'application/json': {
        schema: { $ref: `#/components/schemas/${ERROR_ENVELOPE_SCHEMA}` },
        examples,
      },
    },
  };
}
