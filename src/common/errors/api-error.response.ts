import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ErrorCode } from './error-code';

/** ApiError [S], as it appears in error bodies and in bulk failures. */
export class ApiErrorBody {
  @ApiProperty({ enum: ErrorCode }) code: ErrorCode;
  @ApiProperty() message: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' } },
    description: 'VALIDATION_ERROR: field -> messages',
  })
  details?: Record<string, string[]>;
  @ApiPropertyOptional({ readOnly: true }) requestId?: string;
}
