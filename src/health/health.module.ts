import { Module } from '@nestjs/common';
import { ClicksModule } from '../clicks/clicks.module';
import { DatabasePing } from '../database/database-ping';
import { ReadReplicasModule } from '../database/read-replicas.module';
import { FxModule } from '../fx/fx.module';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';

@Module({
  imports: [FxModule, ClicksModule, ReadReplicasModule],
  controllers: [HealthController],
  providers: [DatabasePing, HealthService],
})
export class HealthModule {}
