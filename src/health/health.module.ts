import { Module } from '@nestjs/common';
import { FxModule } from '../fx/fx.module';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';

@Module({ imports: [FxModule], controllers: [HealthController], providers: [HealthService] })
export class HealthModule {}
