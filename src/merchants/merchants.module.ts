import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MerchantEntity } from './merchant.entity';
import { MerchantsController } from './merchants.controller';
import { MerchantsRepository } from './merchants.repository';
import { MerchantsService } from './merchants.service';

@Module({
  imports: [TypeOrmModule.forFeature([MerchantEntity])],
  controllers: [MerchantsController],
  providers: [MerchantsRepository, MerchantsService],
  exports: [MerchantsService],
})
export class MerchantsModule {}
