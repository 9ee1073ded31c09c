import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NetworkAccountEntity } from './network-account.entity';
import { NetworkAccountsService } from './network-accounts.service';

@Module({
  imports: [TypeOrmModule.forFeature([NetworkAccountEntity])],
  providers: [NetworkAccountsService],
  exports: [NetworkAccountsService],
})
export class NetworksModule {}
