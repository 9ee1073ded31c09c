import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { FxRates, FxSource } from './math/fx-snapshot';

/** One stored set of rates (history; rows are never updated). */
@Entity('fx_rates')
export class FxRateEntity {
  /** bigserial; pg hands int8 back as a string. */
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  /** When the upstream says the rates were valid: staleness is judged on this. */
  @Column({ name: 'valid_at', type: 'timestamptz', precision: 3 })
  validAt: Date;

  /** When we stored them: the latest fetched row is the one in use. */
  @Column({ name: 'fetched_at', type: 'timestamptz', precision: 3 })
  fetchedAt: Date;

  @Column({ type: 'varchar', length: 10 })
  source: FxSource;

  /** Units per 1 USD for all 23 supported currencies. */
  @Column({ type: 'jsonb' })
  rates: FxRates;
}
