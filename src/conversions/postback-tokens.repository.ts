import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { PostbackTokenEntity } from './postback-token.entity';

/** The `postback_tokens` table: one hashed token per creator and environment. */
@Injectable()
export class PostbackTokensRepository {
  constructor(
    @InjectRepository(PostbackTokenEntity)
    private readonly tokens: Repository<PostbackTokenEntity>,
  ) {}

  /** Stores the scope's token hash, replacing the one before. */
  async replace(row: PostbackTokenEntity): Promise<void> {
    await this.tokens.upsert(row, ['creatorId', 'environment']);
  }

  findByHash(tokenHash: string): Promise<PostbackTokenEntity | null> {
    return this.tokens.findOneBy({ tokenHash });
  }
}
