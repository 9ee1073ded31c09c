import { Module } from '@nestjs/common';
import { FxModule } from '../fx/fx.module';
import { MerchantsModule } from '../merchants/merchants.module';
import { NetworksModule } from '../networks/networks.module';
import { RoutingController } from './routing.controller';
import { RoutingService } from './routing.service';

@Module({
  imports: [MerchantsModule, FxModule, NetworksModule],
  controllers: [RoutingController],
  providers: [RoutingService],
  exports: [RoutingService],
})
export class RoutingModule {}
