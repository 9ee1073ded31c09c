import { Global, Module } from '@nestjs/common';
import { CreatorsModule } from '../account/creators.module';
import { AnalyticsModule } from '../analytics/analytics.module';
import { RealisedEpcService } from '../analytics/realised-epc.service';
import { MerchantsModule } from '../merchants/merchants.module';
import { ROUTE_LEARNING_SOURCE } from '../routing/route-learning-source';
import { REALISED_EPC_SOURCE } from './realised-epc-source';
import { RouteLearningService } from './route-learning.service';

/**
 * Learned routing's input (RouteLearningService), for the edge and, through the routing
 * layer's ROUTE_LEARNING_SOURCE port, for the API's routing: global, as the routing module
 * sits below the modules whose data it reads.
 */
@Global()
@Module({
  imports: [CreatorsModule, AnalyticsModule, MerchantsModule],
  providers: [
    RouteLearningService,
    { provide: REALISED_EPC_SOURCE, useExisting: RealisedEpcService },
    { provide: ROUTE_LEARNING_SOURCE, useExisting: RouteLearningService },
  ],
  exports: [RouteLearningService, ROUTE_LEARNING_SOURCE],
})
export class RouteLearningModule {}
