import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable, map } from 'rxjs';

export interface SuccessEnvelope<T> {
  success: true;
  data: T;
}

/** Wraps every API result in the [S] success envelope `{success: true, data}`. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<SuccessEnvelope<unknown>> {
    return next.handle().pipe(map((data: unknown) => ({ success: true as const, data })));
  }
}
