import { DynamicModule, Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from './clock';

@Global()
@Module({})
export class CommonModule {
  /** `clock` lets tests move time (rate-limit windows, quota periods) instead of sleeping. */
  static forRoot(clock: Clock = new SystemClock()): DynamicModule {
    return {
      module: CommonModule,
      providers: [{ provide: Clock, useValue: clock }],
      exports: [Clock],
    };
  }
}
