import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/** A create route that honours `Idempotency-Key` (IdempotencyInterceptor), with its docs. */
export const IdempotentCreate = (): MethodDecorator & ClassDecorator =>
  applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Makes a retry safe: within 24 h the same key and request answer the first answer ' +
        'again (header Idempotent-Replayed: true) and create nothing; the same key with ' +
        'another request is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs 409 ' +
        'IDEMPOTENCY_KEY_IN_USE. 1 to 255 printable ASCII characters; per creator and key ' +
        'environment.',
    }),
  );
