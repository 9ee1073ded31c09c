import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { configToken } from '../config/config.module';
import { DatabaseConfig } from '../config/env';
import { buildDataSourceOptions, EntityList } from './data-source-options';

@Module({})
export class DatabaseModule {
  /**
   * The serving data source, mapping `entities`: the app's list (src/entities.ts), which the
   * root and the CLI pass in, so that this folder names no feature.
   */
  static forRoot(entities: EntityList): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [configToken('database')],
          useFactory: (config: DatabaseConfig) => {
            if (config.url === null) {
              throw new Error('Open the database (openDatabase) before building the app');
            }
            return buildDataSourceOptions(config.url, config.poolSize, entities, config);
          },
        }),
      ],
    };
  }
}
