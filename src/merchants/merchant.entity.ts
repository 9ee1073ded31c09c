import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { numericTransformer } from '../database/column-transformers';
import { MerchantProfile } from './kb/merchant-profile';

/**
 * One knowledge-base profile as seeded from seeds/merchants (reviewed data, versioned), or as
 * an operator changed it since.
 */
@Entity('merchants')
export class MerchantEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  /** meta.version of the profile, `YYYY-MM-DD-NN`. */
  @Column({ type: 'varchar', length: 13 })
  version: string;

  @Column({ type: 'jsonb' })
  profile: MerchantProfile;

  @Column({
    name: 'data_confidence_score',
    type: 'numeric',
    precision: 5,
    scale: 2,
    transformer: numericTransformer,
  })
  dataConfidenceScore: number;

  /** Changed by an operator (`merchants set-epc`): the boot seed no longer overwrites it. */
  @Column({ name: 'edited_by_operator', type: 'boolean', default: false })
  editedByOperator: boolean;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
