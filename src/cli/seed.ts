import { ENTITIES } from '../entities';

/** Runs every idempotent seed (seeds/); returns rows written per seed. */
export { runSeeds as seed } from '../../seeds/run-seeds';

/** What a data source that seeds maps: the app's entities (the plans seed writes through one). */
export const SEED_ENTITIES = ENTITIES;
