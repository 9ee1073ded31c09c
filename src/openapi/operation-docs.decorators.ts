import { applyDecorators, Type } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiParam, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { ErrorCode } from '../common/errors/error-code';
import { ERROR_ENVELOPE_SCHEMA } from './error-answers';
import { buildErrorExample, groupByStatus } from './error-examples';
import { PARAMETER_SOURCE_EXTENSION, ParameterSource } from './parameter-links';

/**
 * A request body documented with its schema and named examples that succeed as shown against
 * a seeded server; Swagger UI pre-fills "Try it out" with the first. The OpenAPI example test
 * (test/e2e/openapi-examples.e2e-spec.ts) sends each of them.
 */
export const ApiRequestExamples = (
  model: Type,
  examples: Record<string, { summary: string; value: unknown }>,
): MethodDecorator =>
  applyDecorators(
    ApiExtraModels(model),
    ApiBody({ schema: { $ref: getSchemaPath(model) }, examples }),
  );

/**
 * A path parameter whose value another operation answers: written into the document as an
 * OpenAPI link on that operation's success answer (links.ts), which the example tests follow
 * to fill the parameter.
 */
export const ApiPathParameterFrom = (
  name: string,
  description: string,
  source: ParameterSource,
): MethodDecorator =>
  ApiParam({
    name,
    type: String,
    description,
    extensions: { [PARAMETER_SOURCE_EXTENSION]: source },
  });

/**
 * The error codes a route answers besides the shared ones (error-answers.ts adds those), one
 * documented answer per status with an example per code.
 */
export const ApiErrorCodes = (...codes: ErrorCode[]): MethodDecorator & ClassDecorator =>
  applyDecorators(
    ...[...groupByStatus(codes)].map(([status, group]) =>
      ApiResponse({
        status,
        description: group.join(', '),
        content: {
          'application/json': {
            schema: { $ref: `#/components/schemas/${ERROR_ENVELOPE_SCHEMA}` },
            examples: Object.fromEntries(group.map((code) => [code, buildErrorExample(code)])),
          },
        },
      }),
    ),
  );
