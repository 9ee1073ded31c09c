import { PlanEntity } from '../account/plan.entity';
import { KeyEnvironment } from './api-key.entity';

/** Who is calling: set on the request by the auth guard, read by controllers and services. */
export interface AuthContext {
  keyId: string;
  creatorId: string;
  environment: KeyEnvironment;
  plan: PlanEntity;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
  }
}
