import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ErrorCode } from '../common/errors/error-code';
import { ERROR_ENVELOPE_SCHEMA } from '../openapi/error-answers';

/** A documented error answer with one example per code it may carry. */
export const ApiErrorExamples = (
  status: number,
  description: string,
  examples: readonly { code: ErrorCode; message: string; details?: Record<string, string[]> }[],
): MethodDecorator =>
  applyDecorators(
    ApiResponse({
      status,
      description,
      content: {
        'application/json': {
          schema: { $ref: `#/components/schemas/${ERROR_ENVELOPE_SCHEMA}` },
          examples: Object.fromEntries(
            examples.map(({ code, message, details }) => [
              code,
              {
                summary: code,
                value: {
                  success: false,
                  error: { code, message, ...(details ? { details } : {}) },
                },
              },
            ]),
          ),
        },
      },
    }),
  );

/** A conversion item that records as is (`occurredAt` in the past, a supported currency). */
export const CONVERSION_EXAMPLE = {
  networkId: 'amazon_associates',
  clickId: '01JD5ZQ7X6M3W1H8K2C4N9P0RT',
  orderId: '114-3941689-8772232',
  status: 'pending',
  saleAmount: 129.99,
  commission: 5.2,
  currency: 'USD',
  occurredAt: '2026-11-20T14:03:00Z',
} as const;
