import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ApiErrorBody } from '../common/errors/api-error.response';
import { addErrorAnswers } from './error-answers';
import { addOutsideApiPaths } from './outside-api-paths';
import { addParameterLinks } from './parameter-links';

/** The tags operations are grouped by, in the order Swagger UI lists them. */
const TAGS: Record<string, string> = {
  links: 'Routed links: create, list, read, update, delete, bulk',
  routing: 'Routing decisions without storing a link',
  merchants: 'The merchant knowledge base',
  analytics: 'Click records and the summary of a period',
  account: 'Plan and click usage of the calling key',
  fx: 'Foreign-exchange rates used to compare earnings in USD',
  sandbox: 'Test-key sandbox (Enterprise)',
  webhooks: 'Webhook endpoints and their deliveries',
  conversions: "The networks' conversions: recorded by the API, postbacks or the CLI import",
  health: 'Service health, liveness and readiness; no authentication',
  redirect: 'The edge redirect a shared link points to (outside /v1)',
};

/**
 * The OpenAPI document of /v1: served at /docs-json and written to openapi.json
 * (`npm run openapi`), so both come from the same code. Paths are relative to the `/v1`
 * server, so Swagger UI's "Try it out" calls `<origin>/v1/...`.
 */
export function createOpenApiDocument(app: INestApplication): OpenAPIObject {
  const builder = new DocumentBuilder()
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
    });
  for (const [name, description] of Object.entries(TAGS)) {
    builder.addTag(name, description);
  }
  const document = SwaggerModule.createDocument(app, builder.build(), {
    ignoreGlobalPrefix: true,
    extraModels: [ApiErrorBody],
  });
  addErrorAnswers(document);
  // The postbacks live outside /v1 (bootstrap.ts): their paths name the origin's root.
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/postbacks/')) continue;
    for (const operation of [item.get, item.post]) {
      if (operation !== undefined) operation.servers = [{ url: '/', description: 'Outside /v1' }];
    }
  }
  // After the error rules: these routes answer by their own (plain JSON, the edge's answers).
  addOutsideApiPaths(document.paths);
  return addParameterLinks(document);
}
