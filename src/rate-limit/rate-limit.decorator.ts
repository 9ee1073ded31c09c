import { SetMetadata } from '@nestjs/common';
import { RateLimitBucket } from './rate-limit.service';

export const RATE_LIMIT_BUCKET = 'linkpilot:rateLimitBucket';

/** Counts the route in a bucket other than the general one (`route`, `bulk`). */
export const UseRateLimitBucket = (bucket: RateLimitBucket): MethodDecorator =>
  SetMetadata(RATE_LIMIT_BUCKET, bucket);
