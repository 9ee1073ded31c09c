import { ERROR_STATUS, ErrorCode } from '../common/errors/error-code';

/**
 * One example message per error code, as the API writes it (the messages of the code that
 * throws it, with sample values), for the documented error answers. A Record over the whole
 * catalogue: a new code does not compile until it has an example here.
 */
const ERROR_MESSAGES: Record<ErrorCode, string> = {
  [ErrorCode.UNAUTHORIZED]: 'The API key is not recognised.',
  [ErrorCode.INVALID_API_KEY]: 'The API key is malformed.',
  [ErrorCode.PUBLISHER_TIER_REQUIRED]:
    "API access needs the Publisher or Enterprise plan; this key's account is on Free.",
  [ErrorCode.ENTERPRISE_TIER_REQUIRED]:
    "This endpoint needs the Enterprise plan; this key's account is on Publisher.",
  [ErrorCode.IP_NOT_ALLOWLISTED]: 'Requests from 203.0.113.7 are not allowed for this API key.',
  [ErrorCode.TEST_KEY_REQUIRED]:
    'Only a test key (lp_test_sk_) can reset the sandbox; live data is never reset.',
  [ErrorCode.PLAN_UPGRADE_REQUIRED]: 'This feature needs a higher plan.',
  [ErrorCode.FREE_TIER_LIMIT_REACHED]: "The Free plan's included clicks are used up this period.",
  [ErrorCode.RATE_LIMIT_EXCEEDED]:
    'Rate limit of 600 requests per minute exceeded for this API key; retry in 12 seconds.',
  [ErrorCode.VALIDATION_ERROR]: 'Invalid request: originalUrl.',
  [ErrorCode.INVALID_URL]: 'originalUrl is not an absolute http(s) URL.',
  [ErrorCode.UNSUPPORTED_MERCHANT]:
    'Links to merchants outside the knowledge base are always passthrough.',
  [ErrorCode.BULK_LIMIT_EXCEEDED]: 'A bulk request holds 1 to 100 links; this one has 101.',
  [ErrorCode.NOT_FOUND]: 'No route for GET /v1/unknown.',
  [ErrorCode.IDEMPOTENCY_KEY_IN_USE]:
    'A request with this Idempotency-Key is still running; retry when it has answered.',
  [ErrorCode.IDEMPOTENCY_KEY_REUSED]:
    'This Idempotency-Key was used with another request in the last 24 hours; use a new key for a new request.',
  [ErrorCode.LINK_NOT_FOUND]: 'No link with id 01JD8Z3Q5X7V2M4N6P8R0T2W4Y.',
  [ErrorCode.MERCHANT_NOT_FOUND]: 'No merchant with id unknown-shop.',
  [ErrorCode.CREATOR_NOT_FOUND]: 'No creator with id 01JD8Z3Q5X7V2M4N6P8R0T2W4Y.',
  [ErrorCode.GROUP_NOT_FOUND]: 'No group with id spring-sale.',
  [ErrorCode.NO_ROUTING_CANDIDATES]: 'No network serves this merchant in the visitor’s region.',
  [ErrorCode.NO_ACTIVE_NETWORK_ACCOUNT]: 'The account has no active account on any network.',
  [ErrorCode.NETWORK_OVERRIDE_UNAVAILABLE]:
    'Network awin has no positive EPC hint for this merchant in the region the link routes to (US).',
  [ErrorCode.ROUTING_FALLBACK]: 'Routing fell back to the original URL.',
  [ErrorCode.INTERNAL_ERROR]: 'An unexpected error occurred.',
  [ErrorCode.KV_ERROR]: 'The key-value store is unavailable; retry shortly.',
  [ErrorCode.DATABASE_UNAVAILABLE]:
    'The database is unavailable or did not answer in time; retry shortly.',
  [ErrorCode.DATABASE_STATEMENT_TIMEOUT]:
    'A database statement of this call ran longer than its statement timeout ' +
    '(DATABASE_STATEMENT_TIMEOUT_MS) and was cancelled; the database is up. Retry shortly.',
  [ErrorCode.ANALYTICS_BUSY]: 'Analytics reads are at capacity; retry shortly.',
  [ErrorCode.SHUTTING_DOWN]: 'This server is shutting down; send the request again.',
  [ErrorCode.FX_DATA_UNAVAILABLE]:
    'No FX rates are available yet: seed the database or run `linkpilot fx refresh`.',
  [ErrorCode.PAYMENT_PROVIDER_ERROR]: 'The payment provider did not answer.',
  [ErrorCode.PAYLOAD_TOO_LARGE]: 'The request body is larger than 1048576 bytes.',
  [ErrorCode.URI_TOO_LONG]: 'The request path and query are longer than 8192 characters.',
  [ErrorCode.HEADERS_TOO_LARGE]: 'The request line and headers are larger than 16384 bytes.',
  [ErrorCode.WEBHOOK_NOT_FOUND]: 'No webhook 01JD8Z3Q5X7V2M4N6P8R0T2W4Y.',
  [ErrorCode.WEBHOOK_DELIVERY_NOT_FOUND]: 'No webhook delivery 01JD8Z3Q5X7V2M4N6P8R0T2W4Y.',
  [ErrorCode.WEBHOOK_LIMIT_REACHED]: 'At most 10 webhook endpoints per account and environment.',
  [ErrorCode.POSTBACK_TOKEN_INVALID]:
    'Unknown postback token: it was never issued or has been replaced. Make one with POST /v1/conversions/postback-token and update the postback URL at the network.',
  [ErrorCode.CLICK_NOT_IN_SCOPE]:
    'Click 01JD8Z3Q5X7V2M4N6P8R0T2W4Y belongs to another creator or environment.',
  [ErrorCode.DOMAIN_NOT_FOUND]: 'No domain with id 01JD8Z3Q5X7V2M4N6P8R0T2W4Y.',
  [ErrorCode.DOMAIN_LIMIT_REACHED]:
    'The Publisher plan has at most 10 branded domains per account and environment.',
  [ErrorCode.DOMAIN_TAKEN]: 'links.example.com is verified by another account.',
  [ErrorCode.SLUG_TAKEN]: 'links.example.com/sale is the slug of another live link.',
};

/** VALIDATION_ERROR's `details`: each refused field with its messages. */
const VALIDATION_DETAILS = { originalUrl: ['originalUrl must use https'] };

/** The `examples` entry of one code: `{success: false, error}` as the API answers it. */
export interface ErrorExample {
  summary: string;
  value: {
    success: false;
    error: {
      code: ErrorCode;
      message: string;
      details?: Record<string, string[]>;
      requestId: string;
    };
  };
}

export function buildErrorExample(code: ErrorCode): ErrorExample {
  return {
    summary: code,
    value: {
      success: false,
      error: {
        code,
        message: ERROR_MESSAGES[code],
        ...(code === ErrorCode.VALIDATION_ERROR ? { details: VALIDATION_DETAILS } : {}),
        requestId: '01JD8Z3Q5X7V2M4N6P8R0T2W4Y',
      },
    },
  };
}

/** The codes of the catalogue grouped by the HTTP status they are answered with. */
export function groupByStatus(codes: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const groups = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = Number(ERROR_STATUS[code]);
    groups.set(status, [...(groups.get(status) ?? []), code]);
  }
  return groups;
}
