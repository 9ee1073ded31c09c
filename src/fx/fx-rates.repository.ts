import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { FxRateEntity } from './fx-rate.entity';

@Injectable()
export class FxRatesRepository {
  constructor(@InjectRepository(FxRateEntity) private readonly rows: Repository<FxRateEntity>) {}

  /** The rates in use: the latest fetched row (ties, within a millisecond, by insertion). */
  async findLatest(): Promise<FxRateEntity | null> {
    const [latest] = await this.rows.find({ order: { fetchedAt: 'DESC', id: 'DESC' }, take: 1 });
    return latest ?? null;
  }

  append(row: Omit<FxRateEntity, 'id'>): Promise<FxRateEntity> {
    return this.rows.save(this.rows.create(row));
  }
}
