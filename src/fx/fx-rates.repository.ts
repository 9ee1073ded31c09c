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

  /**
   * The rates valid at `instant`: the row with the latest `validAt` not after it (the latest
   * fetched of equals), else, for an instant before every stored row, the earliest row.
   */
  async findValidAt(instant: Date): Promise<FxRateEntity | null> {
    const [before] = await this.rows
      .createQueryBuilder('rates')
      .where('rates.validAt <= :instant', { instant })
      .orderBy('rates.validAt', 'DESC')
      .addOrderBy('rates.fetchedAt', 'DESC')
      .addOrderBy('rates.id', 'DESC')
      .take(1)
      .getMany();
    if (before !== undefined) return before;
    const [earliest] = await this.rows.find({ order: { validAt: 'ASC', id: 'ASC' }, take: 1 });
    return earliest ?? null;
  }

  append(row: Omit<FxRateEntity, 'id'>): Promise<FxRateEntity> {
    return this.rows.save(this.rows.create(row));
  }
}
