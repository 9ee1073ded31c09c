import { Logger } from '@nestjs/common';

let installed = false;

/**
 * Last line of defence for the serving process: an error that escapes every handler is
 * logged (with the request id when the error carries one) and the process keeps serving.
 * Ending it would take the edge down for every creator because of one request; the
 * request paths themselves catch their errors (RedirectFronts, the exceptions filter), so
 * reaching this handler is a bug to fix, which the log line makes visible.
 */
export function installProcessGuards(logger = new Logger('Process')): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', (reason) =>
    logger.error(`Unhandled promise rejection${requestIdSuffix(reason)}`, stackOf(reason)),
  );
  process.on('uncaughtException', (error) =>
    logger.error(`Uncaught exception${requestIdSuffix(error)}`, stackOf(error)),
  );
}

function requestIdSuffix(error: unknown): string {
  const requestId = (error as { requestId?: unknown } | null)?.requestId;
  return typeof requestId === 'string' ? ` (request ${requestId})` : ' (no request id)';
}

const stackOf = (error: unknown): string =>
  error instanceof Error ? (error.stack ?? error.message) : String(error);
