import { Foundation1763800000000 } from './1763800000000-foundation';
import { Merchants1763850000000 } from './1763850000000-merchants';

/** Every migration, in order. Listed as classes (not globs) so the same list runs from ts and dist. */
export const MIGRATIONS = [Foundation1763800000000, Merchants1763850000000];
