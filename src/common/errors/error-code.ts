import { HttpStatus } from '@nestjs/common';

/**
 * Every error code the API answers with. The [S] ApiErrorCode values, plus the tier and
 * allowlist codes that the spec's Authentication part states, NOT_FOUND for unknown routes,
 * TEST_KEY_REQUIRED for the sandbox, the idempotency-key conflicts, and the HTTP size limits (body, URL, headers), which [S]
 * has no code for.
 */
export enum ErrorCode {
  UNAUTHORIZED = 'UNAUTHORIZED',
  INVALID_API_KEY = 'INVALID_API_KEY',
  PUBLISHER_TIER_REQUIRED = 'PUBLISHER_TIER_REQUIRED',
  ENTERPRISE_TIER_REQUIRED = 'ENTERPRISE_TIER_REQUIRED',
  IP_NOT_ALLOWLISTED = 'IP_NOT_ALLOWLISTED',
  /** A sandbox-only call (DELETE /v1/sandbox) made with a live key. */
  TEST_KEY_REQUIRED = 'TEST_KEY_REQUIRED',
  PLAN_UPGRADE_REQUIRED = 'PLAN_UPGRADE_REQUIRED',
  FREE_TIER_LIMIT_REACHED = 'FREE_TIER_LIMIT_REACHED',
  RATE_LIMIT_EXCEEDED = 'RATE_LIMIT_EXCEEDED',
  VALIDATION_ERROR = 'VALIDATION_ERROR',
  INVALID_URL = 'INVALID_URL',
  UNSUPPORTED_MERCHANT = 'UNSUPPORTED_MERCHANT',
  BULK_LIMIT_EXCEEDED = 'BULK_LIMIT_EXCEEDED',
  NOT_FOUND = 'NOT_FOUND',
  /** Idempotent creates: the key is held by a request still running. */
  IDEMPOTENCY_KEY_IN_USE = 'IDEMPOTENCY_KEY_IN_USE',
  /** Idempotent creates: the key was used with another request. */
  IDEMPOTENCY_KEY_REUSED = 'IDEMPOTENCY_KEY_REUSED',
  LINK_NOT_FOUND = 'LINK_NOT_FOUND',
  MERCHANT_NOT_FOUND = 'MERCHANT_NOT_FOUND',
  CREATOR_NOT_FOUND = 'CREATOR_NOT_FOUND',
  GROUP_NOT_FOUND = 'GROUP_NOT_FOUND',
  NO_ROUTING_CANDIDATES = 'NO_ROUTING_CANDIDATES',
  NO_ACTIVE_NETWORK_ACCOUNT = 'NO_ACTIVE_NETWORK_ACCOUNT',
  NETWORK_OVERRIDE_UNAVAILABLE = 'NETWORK_OVERRIDE_UNAVAILABLE',
  ROUTING_FALLBACK = 'ROUTING_FALLBACK',
  INTERNAL_ERROR = 'INTERNAL_ERROR',
  KV_ERROR = 'KV_ERROR',
  /** PostgreSQL unreachable or not answering in time: retry (Retry-After). */
  DATABASE_UNAVAILABLE = 'DATABASE_UNAVAILABLE',
  /**
   * PostgreSQL answered, but a statement of the call ran past DATABASE_STATEMENT_TIMEOUT_MS
   * and was cancelled (too much work, or a lock held elsewhere): retry later (Retry-After).
   */
  DATABASE_STATEMENT_TIMEOUT = 'DATABASE_STATEMENT_TIMEOUT',
  /**
   * Analytics reads at capacity (none of their connections free in time), or one ran past its
   * statement timeout: retry (Retry-After), or narrow the request.
   */
  ANALYTICS_BUSY = 'ANALYTICS_BUSY',
  /** This server is stopping (SIGTERM): send the request again, on a new connection. */
  SHUTTING_DOWN = 'SHUTTING_DOWN',
  FX_DATA_UNAVAILABLE = 'FX_DATA_UNAVAILABLE',
  PAYMENT_PROVIDER_ERROR = 'PAYMENT_PROVIDER_ERROR',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  URI_TOO_LONG = 'URI_TOO_LONG',
  HEADERS_TOO_LARGE = 'HEADERS_TOO_LARGE',
  WEBHOOK_NOT_FOUND = 'WEBHOOK_NOT_FOUND',
  WEBHOOK_DELIVERY_NOT_FOUND = 'WEBHOOK_DELIVERY_NOT_FOUND',
  /** A creator's 11th endpoint in one environment. */
  WEBHOOK_LIMIT_REACHED = 'WEBHOOK_LIMIT_REACHED',
  /** A postback URL whose token is unknown, rotated away or malformed. */
  POSTBACK_TOKEN_INVALID = 'POSTBACK_TOKEN_INVALID',
  /** A conversion whose click id is a click of another creator or environment. */
  CLICK_NOT_IN_SCOPE = 'CLICK_NOT_IN_SCOPE',
  /** Branded domains (docs/domains.md). */
  DOMAIN_NOT_FOUND = 'DOMAIN_NOT_FOUND',
  /** The plan's count of branded domains per account and environment is reached. */
  DOMAIN_LIMIT_REACHED = 'DOMAIN_LIMIT_REACHED',
  /** The hostname is this scope's already, or verified by another account. */
  DOMAIN_TAKEN = 'DOMAIN_TAKEN',
  /** A live link of the domain already has this slug. */
  SLUG_TAKEN = 'SLUG_TAKEN',
}

/** A new code does not compile until it has a status here. */
export const ERROR_STATUS: Record<ErrorCode, HttpStatus> = {
  [ErrorCode.UNAUTHORIZED]: HttpStatus.UNAUTHORIZED,
  [ErrorCode.INVALID_API_KEY]: HttpStatus.UNAUTHORIZED,
  [ErrorCode.PUBLISHER_TIER_REQUIRED]: HttpStatus.FORBIDDEN,
  [ErrorCode.ENTERPRISE_TIER_REQUIRED]: HttpStatus.FORBIDDEN,
  [ErrorCode.IP_NOT_ALLOWLISTED]: HttpStatus.FORBIDDEN,
  [ErrorCode.TEST_KEY_REQUIRED]: HttpStatus.FORBIDDEN,
  [ErrorCode.PLAN_UPGRADE_REQUIRED]: HttpStatus.FORBIDDEN,
  [ErrorCode.FREE_TIER_LIMIT_REACHED]: HttpStatus.FORBIDDEN,
  [ErrorCode.RATE_LIMIT_EXCEEDED]: HttpStatus.TOO_MANY_REQUESTS,
  [ErrorCode.VALIDATION_ERROR]: HttpStatus.BAD_REQUEST,
  [ErrorCode.INVALID_URL]: HttpStatus.BAD_REQUEST,
  [ErrorCode.UNSUPPORTED_MERCHANT]: HttpStatus.BAD_REQUEST,
  [ErrorCode.BULK_LIMIT_EXCEEDED]: HttpStatus.BAD_REQUEST,
  [ErrorCode.NOT_FOUND]: HttpStatus.NOT_FOUND,
  [ErrorCode.IDEMPOTENCY_KEY_IN_USE]: HttpStatus.CONFLICT,
  [ErrorCode.IDEMPOTENCY_KEY_REUSED]: HttpStatus.UNPROCESSABLE_ENTITY,
  [ErrorCode.LINK_NOT_FOUND]: HttpStatus.NOT_FOUND,
  [ErrorCode.MERCHANT_NOT_FOUND]: HttpStatus.NOT_FOUND,
  [ErrorCode.CREATOR_NOT_FOUND]: HttpStatus.NOT_FOUND,
  [ErrorCode.GROUP_NOT_FOUND]: HttpStatus.NOT_FOUND,
  [ErrorCode.NO_ROUTING_CANDIDATES]: HttpStatus.BAD_REQUEST,
  [ErrorCode.NO_ACTIVE_NETWORK_ACCOUNT]: HttpStatus.BAD_REQUEST,
  [ErrorCode.NETWORK_OVERRIDE_UNAVAILABLE]: HttpStatus.BAD_REQUEST,
  [ErrorCode.ROUTING_FALLBACK]: HttpStatus.BAD_REQUEST,
  [ErrorCode.INTERNAL_ERROR]: HttpStatus.INTERNAL_SERVER_ERROR,
  [ErrorCode.KV_ERROR]: HttpStatus.SERVICE_UNAVAILABLE,
  [ErrorCode.DATABASE_UNAVAILABLE]: HttpStatus.SERVICE_UNAVAILABLE,
  [ErrorCode.DATABASE_STATEMENT_TIMEOUT]: HttpStatus.SERVICE_UNAVAILABLE,
  [ErrorCode.ANALYTICS_BUSY]: HttpStatus.SERVICE_UNAVAILABLE,
  [ErrorCode.SHUTTING_DOWN]: HttpStatus.SERVICE_UNAVAILABLE,
  [ErrorCode.FX_DATA_UNAVAILABLE]: HttpStatus.SERVICE_UNAVAILABLE,
  [ErrorCode.PAYMENT_PROVIDER_ERROR]: HttpStatus.BAD_GATEWAY,
  [ErrorCode.PAYLOAD_TOO_LARGE]: HttpStatus.PAYLOAD_TOO_LARGE,
  [ErrorCode.URI_TOO_LONG]: HttpStatus.URI_TOO_LONG,
  // 431 Request Header Fields Too Large (RFC 6585), which HttpStatus does not name.
  [ErrorCode.HEADERS_TOO_LARGE]: 431 as HttpStatus,
  [ErrorCode.WEBHOOK_NOT_FOUND]: HttpStatus.NOT_FOUND,
  [ErrorCode.WEBHOOK_DELIVERY_NOT_FOUND]: HttpStatus.NOT_FOUND,
  [ErrorCode.WEBHOOK_LIMIT_REACHED]: HttpStatus.FORBIDDEN,
  [ErrorCode.POSTBACK_TOKEN_INVALID]: HttpStatus.UNAUTHORIZED,
  [ErrorCode.CLICK_NOT_IN_SCOPE]: HttpStatus.FORBIDDEN,
  [ErrorCode.DOMAIN_NOT_FOUND]: HttpStatus.NOT_FOUND,
  [ErrorCode.DOMAIN_LIMIT_REACHED]: HttpStatus.FORBIDDEN,
  [ErrorCode.DOMAIN_TAKEN]: HttpStatus.CONFLICT,
  [ErrorCode.SLUG_TAKEN]: HttpStatus.CONFLICT,
};
