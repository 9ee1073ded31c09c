import { DynamicModule, Global, Inject, Module } from '@nestjs/common';
import { AppConfig } from './env';

/** The injection token of one configuration slice, for factory providers. */
export const configToken = (slice: keyof AppConfig): string => `config:${slice}`;

/** Injects one typed slice of the configuration: `@InjectConfig('http') http: HttpConfig`. */
export const InjectConfig = (slice: keyof AppConfig): ParameterDecorator & PropertyDecorator =>
  Inject(configToken(slice));

@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    const slices = (Object.keys(config) as (keyof AppConfig)[]).map((slice) => ({
      provide: configToken(slice),
      useValue: config[slice],
    }));
    return {
      module: ConfigModule,
      providers: slices,
      exports: slices.map((slice) => slice.provide),
    };
  }
}
