import { ErrorCode } from '../common/errors/error-code';
import { ApiErrorCodes } from '../openapi/operation-docs.decorators';

/**
 * Documents the analytics reads' own 503 (analytics-database.ts) beside the shared ones:
 * ANALYTICS_BUSY (with Retry-After) when every analytics slot stayed taken for
 * ANALYTICS_QUEUE_TIMEOUT_MS, or the read ran past ANALYTICS_STATEMENT_TIMEOUT_MS.
 */
export const ApiAnalyticsBusy = (): MethodDecorator & ClassDecorator =>
  ApiErrorCodes(ErrorCode.ANALYTICS_BUSY);
