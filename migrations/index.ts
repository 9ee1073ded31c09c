import { Foundation1763800000000 } from './1763800000000-foundation';

/** Every migration, in order. Listed as classes (not globs) so the same list runs from ts and dist. */
export const MIGRATIONS = [Foundation1763800000000];
