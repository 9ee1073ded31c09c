import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { AppExtras } from '../../src/app.module';
import { createApp } from '../../src/bootstrap';
import { loadConfig } from '../../src/config/env';
import { TEST_WEBHOOK_SECRET_KEY } from './test-webhook-key';

/**
 * Tests never reach the outside world unless they ask to: no background probes of real
 * merchant sites, and FX upstreams on a closed loopback port (the daily refresh job may fire
 * during a run). Tests that exercise them set their own values.
 */
const OFFLINE_DEFAULTS: Record<string, string> = {
  LOG_LEVEL: 'fatal',
  PROBES_ENABLED: 'false',
  FX_PRIMARY_URL: 'http://127.0.0.1:9/fx-primary',
  FX_FALLBACK_URL: 'http://127.0.0.1:9/fx-fallback',
  // Failed authentications are counted per client address in Redis, and every suite calls from
  // loopback, across files and reruns: the default limit would turn their 401s into 429s.
  // auth-hardening.e2e-spec.ts tests the real limit from addresses of its own.
  AUTH_FAILURES_PER_MINUTE: '100000',
  // Webhook deliveries run only when a test drives them (WebhookDeliveryWorker.deliverOnce).
  WEBHOOK_WORKER_ENABLED: 'false',
  WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
  // Suites write clicks on fixed calendar days and read them back with the real clock: the
  // clicks list covers CLICK_RETENTION_MONTHS back from today, and the daily retention job may
  // fire during a run and drop old partitions of the shared database. A century keeps both
  // away; click-retention.e2e-spec.ts tests the real defaults on a clock of its own.
  CLICK_RETENTION_MONTHS: '1200',
  ROLLUP_RETENTION_MONTHS: '1200',
};

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
  const config = loadConfig({ ...OFFLINE_DEFAULTS, ...process.env, ...env });
  const app = await createApp(config, extras);
  return {
    app,
    http: request(app.getHttpServer()),
    close: () => app.close(),
  };
}
