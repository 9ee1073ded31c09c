import { ErrorCode } from '../common/errors/error-code';
import { ApiErrorCodes } from '../openapi/operation-docs.decorators';

/**
 * Documents the analytics reads' own 503 (analytics-database.ts) beside the shared ones:
 * ANALYTICS_BUSY (with Retry-After) when every analytics slot stayed taken or resting
 * (ANALYTICS_PRIMARY_SHARE_PERCENT) for ANALYTICS_QUEUE_TIMEOUT_MS, a time series found the
 * points budget spent (ANALYTICS_POINTS_PER_SECOND), or the read ran past
 * ANALYTICS_STATEMENT_TIMEOUT_MS.
 */
export const ApiAnalyticsBusy = (): MethodDecorator & ClassDecorator =>
  ApiErrorCodes(ErrorCode.ANALYTICS_BUSY);
