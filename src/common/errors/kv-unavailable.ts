import { AppError } from './app-error';
import { ErrorCode } from './error-code';

/** Seconds a client should wait before retrying a call the key-value store could not serve. */
const KV_RETRY_AFTER_SECONDS = 5;

export function kvUnavailableError(): AppError {
  return new AppError(
    ErrorCode.KV_ERROR,
    'The key-value store is unavailable; retry shortly.',
    undefined,
    { 'retry-after': String(KV_RETRY_AFTER_SECONDS) },
  );
}

/**
 * Whether an error is the Redis client's way of saying it has no connection (the few calls
 * with no in-process fallback during an outage: an Idempotency-Key claim, the unique-visitor
 * counts, the sandbox's usage reset), so the call answers 503 KV_ERROR with Retry-After
 * rather than 500. Reads the error's words only, so common needs no Redis import.
 */
export function isKvUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.name === 'MaxRetriesPerRequestError' || UNAVAILABLE_MESSAGES.test(error.message);
}

// ioredis: a command while disconnected with the offline queue off, and one in flight when
// the connection dropped; on a Redis Cluster, a command while no node answers, and one still
// failing after its retries (a node lost, its slots not yet taken over). A command not
// answered within REDIS_COMMAND_TIMEOUT_MS (a stalled Redis), and one the store did not send
// because Redis is down (src/kv/redis-kv-store.ts).
const UNAVAILABLE_MESSAGES =
  /^Stream isn't writeable|^Connection is closed|^Cluster isn't ready|^None of startup nodes|^Too many Cluster redirections|^Command timed out|^Redis unreachable: command not sent/;
