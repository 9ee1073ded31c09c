/** The environments an API key (and, through it, a request) belongs to. */
export const KEY_ENVIRONMENTS = ['live', 'test'] as const;
export type KeyEnvironment = (typeof KEY_ENVIRONMENTS)[number];

/**
 * Whose records a request may reach: one creator's, in one environment (its key's). Every
 * repository read and write of links and clicks takes one, so no code path can forget the
 * sandbox. An AuthContext is one.
 */
export interface RecordScope {
  creatorId: string;
  environment: KeyEnvironment;
}

/**
 * What the API gate and the routes need of the caller's plan: its capabilities and limits,
 * read from the plan row (`plans` table), never inferred from the plan's id.
 */
interface CallerPlan {
  id: string;
  displayName: string;
  hasApiAccess: boolean;
  hasBulkAccess: boolean;
  hasWebhooks: boolean;
  apiRequestsPerMinute: number | null;
  routeRequestsPerMinute: number | null;
  bulkRequestsPerMinute: number | null;
}

/** A capability a plan row grants. */
export type PlanCapability = 'hasApiAccess' | 'hasBulkAccess' | 'hasWebhooks';

/**
 * Who is calling: set on the request by the API gate (auth), read by controllers. Lives in
 * common so that feature modules name their caller without importing the auth module.
 */
export interface AuthContext {
  keyId: string;
  creatorId: string;
  environment: KeyEnvironment;
  plan: CallerPlan;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
  }
}
