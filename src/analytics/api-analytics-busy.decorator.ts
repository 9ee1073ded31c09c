import { ApiResponse } from '@nestjs/swagger';
import { ERROR_ENVELOPE_SCHEMA } from '../openapi/error-answers';

/** Documents the analytics reads' own 503 (analytics-database.ts) beside the shared ones. */
export const ApiAnalyticsBusy = (): MethodDecorator & ClassDecorator =>
  ApiResponse({
    status: 503,
    description:
      'ANALYTICS_BUSY (with Retry-After): every analytics slot stayed taken for ' +
      'ANALYTICS_QUEUE_TIMEOUT_MS, or the read ran past ANALYTICS_STATEMENT_TIMEOUT_MS; ' +
      'or a backing store is unavailable: KV_ERROR, DATABASE_UNAVAILABLE',
    schema: { $ref: `#/components/schemas/${ERROR_ENVELOPE_SCHEMA}` },
  });
