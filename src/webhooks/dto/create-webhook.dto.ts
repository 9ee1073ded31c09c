import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { SUBSCRIBABLE_EVENT_TYPES, SubscribableEventType } from '../../events/event-types';

/** A browser origin: scheme, host and optional port, nothing else. */
const ORIGIN_PATTERN = /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i;
const eventsMessage = `events must be a non-empty list of ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}`;

export class CreateWebhookDto {
  @ApiProperty({
    format: 'uri',
    maxLength: 2048,
    description:
      'https; refused when the host resolves to a private, loopback or link-local address',
  })
  @IsString()
  @MaxLength(2048)
  url: string;

  @ApiProperty({ enum: SUBSCRIBABLE_EVENT_TYPES, isArray: true, minItems: 1 })
  @IsArray({ message: eventsMessage })
  @ArrayMinSize(1, { message: eventsMessage })
  @ArrayUnique({ message: 'events must not repeat a type' })
  @IsIn(SUBSCRIBABLE_EVENT_TYPES, { each: true, message: eventsMessage })
  events: SubscribableEventType[];

  @ApiPropertyOptional({ maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string;

  @ApiPropertyOptional({
    type: [String],
    maxItems: 20,
    example: ['https://dashboard.example.com'],
    description: 'Browser origins of this integration',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MaxLength(300, { each: true })
  @Matches(ORIGIN_PATTERN, {
    each: true,
    message: 'allowedOrigins must be origins (scheme://host[:port])',
  })
  allowedOrigins?: string[];

  @ApiPropertyOptional({ default: true, description: 'false: no new deliveries are made' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}
