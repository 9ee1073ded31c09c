import { LogLevel, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Server } from 'node:http';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { newUlid } from './common/ids';
import { AppExtras, AppModule } from './app.module';
import { AppError } from './common/errors/app-error';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { ErrorCode } from './common/errors/error-code';
import { toValidationDetails } from './common/errors/validation-details';
import { RefuseNulCharactersPipe } from './common/validators/refuse-nul-characters.pipe';
import { EnvelopeInterceptor } from './common/envelope.interceptor';
import { answerClientError, answerUndecodablePath } from './common/http/client-errors';
import { registerHttpHooks } from './common/http/http-hooks';
import { BODY_LIMIT_BYTES, depthBoundJsonParser } from './common/http/json-body';
import { compileTrustProxy } from './common/http/trust-proxy';
import { AppConfig, HttpConfig } from './config/env';
import { RedirectFronts, RequestListener } from './redirect/redirect-fronts';
import { RedirectHandler } from './redirect/redirect.handler';

const NEST_LOG_LEVELS: Record<HttpConfig['logLevel'], LogLevel[]> = {
  fatal: ['fatal'],
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  info: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug'],
  trace: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
  silent: [],
};

/**
 * Builds the whole application, ready to listen: the one path used by main.ts and by every
 * e2e test, so tests exercise exactly what production runs. `config.database.url` must be
 * set (see openDatabase).
 */
export async function createApp(
  config: AppConfig,
  extras: AppExtras = {},
): Promise<NestFastifyApplication> {
  const isTrusted = compileTrustProxy(config.http.trustProxy);
  const redirectFronts = new RedirectFronts({
    requireHttps: config.http.requireHttps,
    isTrusted,
  });
  const adapter = new FastifyAdapter({
    serverFactory: (fastifyListener: RequestListener, options: Record<string, unknown>) =>
      redirectFronts.createServer(fastifyListener, options),
    trustProxy: isTrusted,
    genReqId: () => newUlid(),
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT_BYTES,
    clientErrorHandler: answerClientError,
    frameworkErrors: answerUndecodablePath,
    // Any id, however long, is looked up (and answered 404), not refused by the router.
    routerOptions: { maxParamLength: 4096 },
    logger: false,
  });
  registerHttpHooks(adapter.getInstance(), config.http, isTrusted);
  const jsonParser = depthBoundJsonParser(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config, extras),
    adapter,
    {
      logger: NEST_LOG_LEVELS[config.http.logLevel],
    },
  );
  app.useBodyParser<Server>('application/json', { bodyLimit: BODY_LIMIT_BYTES }, jsonParser);
  // The edge redirect lives outside /v1, with no guard, pipe or interceptor.
  redirectFronts.attach(app.get(RedirectHandler), adapter.getInstance());
  app.setGlobalPrefix('v1');
  app.useGlobalPipes(
    new RefuseNulCharactersPipe(),
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
  app.enableShutdownHooks();
  setUpSwagger(app);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

function setUpSwagger(app: NestFastifyApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Linkpilot API')
      .setDescription(
        'Affiliate-link routing: canonicalise merchant URLs, route by expected earnings per click, redirect at the edge. Every answer is `{success, data}` or `{success: false, error}`.',
      )
      .setVersion('v1')
      .addServer('/v1', 'This deployment')
      .addBearerAuth({
        type: 'http',
        scheme: 'bearer',
        description:
          'An API key: lp_live_sk_… (live) or lp_test_sk_… (Enterprise test key: the sandbox, ' +
          'whose links and clicks are kept apart from live ones and never billed)',
      })
      .build(),
    { ignoreGlobalPrefix: true },
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
}
