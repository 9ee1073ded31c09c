import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { configToken } from '../config/config.module';
import { DatabaseConfig } from '../config/env';
import { buildDataSourceOptions } from './data-source-options';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [configToken('database')],
      useFactory: (config: DatabaseConfig) => {
        if (config.url === null) {
          throw new Error('Open the database (openDatabase) before building the app');
        }
        return buildDataSourceOptions(config.url, config.poolSize, config);
      },
    }),
  ],
})
export class DatabaseModule {}
