import { RequestMethod, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Server } from 'node:http';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { newUlid } from './common/ids';
import { AppExtras, AppModule } from './app.module';
import { AppError } from './common/errors/app-error';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { ErrorCode } from './common/errors/error-code';
import { toValidationDetails } from './common/errors/validation-details';
import { RefuseMalformedTextPipe } from './common/validators/refuse-malformed-text.pipe';
import { EnvelopeInterceptor } from './common/envelope.interceptor';
import { answerClientError, answerUndecodablePath } from './common/http/client-errors';
import { registerHttpHooks } from './common/http/http-hooks';
import { BODY_LIMIT_BYTES, depthBoundJsonParser } from './common/http/json-body';
import { parseQueryString } from './common/http/query-string';
import { ShutdownGate } from './common/http/shutdown-gate';
import { compileTrustProxy } from './common/http/trust-proxy';
import { applyConnectionLimits } from './common/http/connection-limits';
import { clientAddressKey } from './rate-limit/client-address-key';
import { AppConfig } from './config/env';
import { RedirectFronts, RequestListener } from './redirect/redirect-fronts';
import { BrandedFront } from './redirect/branded-front';
import { BrandedTargetsService } from './domains/branded-targets.service';
import { RedirectHandler } from './redirect/redirect.handler';
import { HealthService } from './health/health.service';
import { registerProbeRoutes } from './health/probe-routes';
import { AppMetrics } from './metrics/app-metrics';
import { DatabasePool, registerBackgroundGauges } from './metrics/background-gauges';
import { createAppLogger, NestPinoLogger } from './common/logging/app-logger';
import { CLICK_CONSUMER_GROUP, ClickStreamConsumer } from './analytics/click-stream.consumer';
import { CLICK_STREAMS } from './analytics/click-streams';
import { KvStore } from './kv/kv-store';
import { ReadReplicas } from './database/read-replicas';
import { FxService } from './fx/fx.service';
import { createOpenApiDocument } from './openapi/openapi-document';
import { assertWebhookKeyConfigured } from './webhooks/webhook-secret-keyring';

/** The Fastify route of the edge redirect (RedirectFronts), counted as redirects, not API. */
const REDIRECT_ROUTE = '/r/:linkId';

/**
 * Builds the whole application, ready to listen: the one path used by main.ts and by every
 * e2e test, so tests exercise exactly what production runs. `config.database.url` must be
 * set (see openDatabase).
 */
export async function createApp(
  config: AppConfig,
  extras: AppExtras = {},
): Promise<NestFastifyApplication> {
  // No WEBHOOK_SECRET_KEY outside development: a ConfigError before anything starts.
  assertWebhookKeyConfigured(config.webhooks);
  const isTrusted = compileTrustProxy(config.http.trustProxy);
  const metrics = new AppMetrics({ collectProcessMetrics: true });
  const logger = createAppLogger(config.http.logLevel);
  const shutdownGate = new ShutdownGate();
  const redirectFronts = new RedirectFronts({
    requireHttps: config.http.requireHttps,
    isTrusted,
    metrics,
    shutdownGate,
  });
  const adapter = new FastifyAdapter({
    serverFactory: (fastifyListener: RequestListener, options: Record<string, unknown>) =>
      applyConnectionLimits(redirectFronts.createServer(fastifyListener, options), config.http, {
        isTrusted,
        addressKeyOf: clientAddressKey,
      }),
    trustProxy: isTrusted,
    genReqId: () => newUlid(),
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT_BYTES,
    clientErrorHandler: answerClientError,
    frameworkErrors: answerUndecodablePath,
    // Any id, however long, is looked up (and answered 404), not refused by the router.
    routerOptions: { maxParamLength: 4096, querystringParser: parseQueryString },
    logger: false,
  });
  registerHttpHooks(adapter.getInstance(), config.http, isTrusted);
  // Closing Fastify (main.ts on SIGTERM, or app.close()) first drains the server through the
  // gate: Fastify's own closing steps then find no connection left.
  adapter.getInstance().addHook('preClose', () => shutdownGate.close(adapter.getInstance().server));
  observeRequests(adapter.getInstance(), metrics, logger);
  const jsonParser = depthBoundJsonParser(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config, { ...extras, metrics }),
    adapter,
    { logger: new NestPinoLogger(logger) },
  );
  app.useBodyParser<Server>('application/json', { bodyLimit: BODY_LIMIT_BYTES }, jsonParser);
  // The edge redirect lives outside /v1, with no guard, pipe or interceptor.
  redirectFronts.attach(
    app.get(RedirectHandler),
    adapter.getInstance(),
    new BrandedFront(app.get(BrandedTargetsService)),
  );
  registerProbeRoutes(adapter.getInstance(), app.get(HealthService));
  // The networks' postbacks live outside /v1, like the edge: their URL is the network's setting.
  app.setGlobalPrefix('v1', {
    exclude: [{ path: 'postbacks/:token/:networkId', method: RequestMethod.ALL }],
  });
  app.useGlobalPipes(
    new RefuseMalformedTextPipe(),
    new ValidationPipe({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      exceptionFactory: (errors) => {
        const details = toValidationDetails(errors);
        return new AppError(
          ErrorCode.VALIDATION_ERROR,
          `Invalid request: ${Object.keys(details).join(', ')}.`,
          details,
        );
      },
    }),
  );
  app.useGlobalFilters(new AllExceptionsFilter());
  app.useGlobalInterceptors(new EnvelopeInterceptor());
  // No enableShutdownHooks: main.ts handles SIGTERM/SIGINT, HTTP first, then the modules.
  setUpSwagger(app);
  observeBackgroundWork(app, metrics);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

/**
 * One log line and the API metrics for every request Fastify answers (the API and the docs;
 * clicks, on the raw front or Fastify's /r/ route, are counted as redirects and not logged
 * one by one). The line names the route pattern, never the URL with its query, nor the
 * client's address.
 */
function observeRequests(fastify: FastifyInstance, metrics: AppMetrics, logger: Logger): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url;
    if (route !== REDIRECT_ROUTE) {
      metrics.observeApiRequest(
        request.method,
        route ?? 'unmatched',
        reply.statusCode,
        reply.elapsedTime / 1000,
      );
      // Orchestrators call the probes every few seconds: counted, not logged.
      if (route === '/livez' || route === '/readyz') {
        done();
        return;
      }
      logger.info(
        {
          requestId: String(request.id),
          method: request.method,
          route: route ?? 'unmatched',
          status: reply.statusCode,
          durationMs: Math.round(reply.elapsedTime * 10) / 10,
          creatorId: request.auth?.creatorId ?? null,
        },
        'request',
      );
    }
    done();
  });
}

/** Metrics read at each scrape from the modules that own the values. */
function observeBackgroundWork(app: NestFastifyApplication, metrics: AppMetrics): void {
  const consumer = app.get(ClickStreamConsumer, { strict: false });
  const fx = app.get(FxService, { strict: false });
  const store = app.get(KvStore, { strict: false });
  const dataSource = app.get(DataSource, { strict: false });
  const replicas = app.get(ReadReplicas, { strict: false });
  registerBackgroundGauges(metrics.registry, {
    clickStreams: {
      streams: CLICK_STREAMS,
      isReachable: () => store.isReachable(),
      read: (stream) => store.streamGroupInfo(stream, CLICK_CONSUMER_GROUP),
    },
    // node-postgres's Pool, embedded (PGlite's socket) or not; absent until it exists.
    databasePool: () =>
      ((dataSource.driver as PostgresDriver).master as DatabasePool | undefined) ?? null,
    kvConnections: () => store.connectionUsage(),
    clicksWritten: () => consumer.writtenInBackground,
    fxAgeHours: () => fx.peekHeldAgeHours(),
    readReplicas: () =>
      replicas.states().map(({ replica, status, lagSeconds }) => ({
        replica,
        isInUse: status === 'ok',
        lagSeconds,
      })),
  });
}

function setUpSwagger(app: NestFastifyApplication): void {
  const document = createOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
    // The browser tab's title (Swagger UI's own otherwise).
    customSiteTitle: 'Linkpilot API',
    // The key typed into Authorize survives a reload (kept in the browser's localStorage).
    swaggerOptions: { persistAuthorization: true, tagsSorter: 'alpha' },
  });
}
