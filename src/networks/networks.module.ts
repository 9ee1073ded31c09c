import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NetworkAccountEntity } from './network-account.entity';
import { NetworkAccountsRepository } from './network-accounts.repository';
import { NetworkAccountsService } from './network-accounts.service';

@Module({
  imports: [TypeOrmModule.forFeature([NetworkAccountEntity])],
  providers: [NetworkAccountsRepository, NetworkAccountsService],
  exports: [NetworkAccountsService],
})
export class NetworksModule {}
