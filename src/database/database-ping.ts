import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** What the health checks ask of the serving database. */
@Injectable()
export class DatabasePing {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Resolves when the database answers a trivial statement. */
  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }

  /** Whether a migration this process knows is not applied yet (reads the migrations table). */
  hasPendingMigrations(): Promise<boolean> {
    return this.dataSource.showMigrations();
  }
}
