import type { KeyEnvironment } from '../common/access/auth-context';
import type { RouteLearning } from './engine';

/**
 * Where the API's routing (POST /route, link creation) gets a creator's learned-routing input:
 * undefined when the creator routes `hinted`. Implemented above the routing layer, where the
 * creators' settings and their clicks and commissions are (redirect/route-learning.service.ts);
 * a process without it (the admin CLI) routes every creator `hinted`.
 */
export interface RouteLearningSource {
  learningFor(creatorId: string, environment: KeyEnvironment): Promise<RouteLearning | undefined>;
}

/** The injection token of the RouteLearningSource. */
export const ROUTE_LEARNING_SOURCE = 'RouteLearningSource';
