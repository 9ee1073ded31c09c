import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { FxRateEntity } from './fx-rate.entity';
import { FxRatesRepository } from './fx-rates.repository';
import { FxRefreshJob } from './fx-refresh.job';
import { FxUpstreamClient } from './fx-upstream.client';
import { FxController } from './fx.controller';
import { FxService } from './fx.service';

/**
 * FX rates: history in PostgreSQL, the daily refresh job, GET /fx-rates. The job fires only
 * where ScheduleModule is loaded (the server), not in the admin CLI.
 */
@Module({
  imports: [TypeOrmModule.forFeature([FxRateEntity])],
  controllers: [FxController],
  providers: [FxService, FxRatesRepository, FxUpstreamClient, FxRefreshJob],
  exports: [FxService],
})
export class FxModule {}
