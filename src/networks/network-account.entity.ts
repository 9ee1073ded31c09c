import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { NetworkId } from './network-ids';

/** A creator's affiliate account on one network: the id its tracking parameters carry. */
@Entity('network_accounts')
export class NetworkAccountEntity {
  @PrimaryColumn({ name: 'creator_id', type: 'varchar', length: 26 })
  creatorId: string;

  @PrimaryColumn({ name: 'network_id', type: 'varchar', length: 40 })
  networkId: NetworkId;

  @Column({ name: 'affiliate_id', type: 'varchar', length: 100 })
  affiliateId: string;

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
