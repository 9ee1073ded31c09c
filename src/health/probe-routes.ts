import type { FastifyInstance } from 'fastify';
import type { HealthService } from './health.service';

/**
 * Liveness and readiness for orchestrators and the Dockerfile's HEALTHCHECK, outside /v1 and
 * without authentication, Nest guards or the envelope (plain JSON, the status code is the
 * answer):
 * - GET /livez: 200 whenever the process answers HTTP; it checks nothing else, so a slow
 *   database never gets a healthy process restarted.
 * - GET /readyz: 200 when migrations are applied and PostgreSQL and the key-value store
 *   answer, else 503 naming the failing check; traffic should go elsewhere meanwhile.
 */
export function registerProbeRoutes(fastify: FastifyInstance, health: HealthService): void {
  fastify.get('/livez', (_request, reply) =>
    reply.header('cache-control', 'no-store').send({ status: 'ok' }),
  );
  fastify.get('/readyz', async (_request, reply) => {
    const readiness = await health.checkReadiness();
    return reply
      .status(readiness.isReady ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: readiness.isReady ? 'ok' : 'not_ready', checks: readiness.checks });
  });
}
