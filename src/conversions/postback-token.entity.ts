import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { KeyEnvironment } from '../common/access/auth-context';

/** A creator's postback token for one environment: only its SHA-256 is stored. */
@Entity('postback_tokens')
export class PostbackTokenEntity {
  @PrimaryColumn({ name: 'creator_id', type: 'varchar', length: 26 })
  creatorId: string;

  @PrimaryColumn({ type: 'varchar', length: 4 })
  environment: KeyEnvironment;

  /** Hex SHA-256 of the token. */
  @Column({ name: 'token_hash', type: 'char', length: 64 })
  tokenHash: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
