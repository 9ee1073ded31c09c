import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { AppExtras } from '../../src/app.module';
import { createApp } from '../../src/bootstrap';
import { loadConfig } from '../../src/config/env';

export interface TestApp {
  app: NestFastifyApplication;
  http: TestAgent;
  close(): Promise<void>;
}

/**
 * The real application (same createApp as production) on the run's database and, when
 * REDIS_URL is set, real Redis. `env` overrides variables for this app only.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  extras: AppExtras = {},
): Promise<TestApp> {
  const config = loadConfig({ LOG_LEVEL: 'fatal', ...process.env, ...env });
  const app = await createApp(config, extras);
  return {
    app,
    http: request(app.getHttpServer()),
    close: () => app.close(),
  };
}
