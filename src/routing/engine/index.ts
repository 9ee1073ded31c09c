// The routing engine's public surface: pure functions over plain data (docs/design.md section 3;
// the model: docs/routing.md).
export { decideRoute } from './decide-route';
export { isNetworkAvailable } from './list-candidates';
export * from './routing-types';
export { DecisionKeys } from './decision-key';
export { isPinActive } from './pick-winner';
export {
  toAffiliateIds,
  toLinkRoutingInput,
  type AffiliateIds,
  type RoutableLink,
} from './link-routing-input';
export {
  explorationLaneOf,
  observedRoutesFrom,
  type RouteFigure,
  type RouteLearning,
} from './learned-epc';
