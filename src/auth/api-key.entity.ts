import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { CreatorEntity } from '../account/creator.entity';

import { KeyEnvironment } from '../common/access/auth-context';

export { KEY_ENVIRONMENTS } from '../common/access/auth-context';
export type { KeyEnvironment };

@Entity('api_keys')
export class ApiKeyEntity {
  /** ULID; the public handle used to revoke a key. */
  @PrimaryColumn({ type: 'varchar', length: 26 })
  id: string;

  @Column({ name: 'creator_id', type: 'varchar', length: 26 })
  creatorId: string;

  @ManyToOne(() => CreatorEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'creator_id' })
  creator?: CreatorEntity;

  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  @Column({ name: 'key_hash', type: 'char', length: 64, unique: true })
  keyHash: string;

  /** The first characters of the key, shown in dashboards to tell keys apart. */
  @Column({ name: 'display_prefix', type: 'varchar', length: 24 })
  displayPrefix: string;

  @Column({ type: 'varchar', length: 4 })
  environment: KeyEnvironment;

  /** Single IPs and CIDR blocks (IPv4 or IPv6); empty means any address (Enterprise only). */
  @Column({ name: 'ip_allowlist', type: 'text', array: true, default: () => "'{}'" })
  ipAllowlist: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', precision: 3, nullable: true })
  lastUsedAt: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', precision: 3, nullable: true })
  revokedAt: Date | null;
}
