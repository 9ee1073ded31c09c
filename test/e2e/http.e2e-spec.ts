import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { ProbeModule } from '../support/probe.module';
import { startTestApp, TestApp } from '../support/test-app';

describe('HTTP conventions (e2e)', () => {
  let t: TestApp;
  let creator: TestCreator;

  beforeAll(async () => {
    t = await startTestApp({}, { imports: [ProbeModule] });
    creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
  });
  afterAll(() => t.close());

  describe('errors', () => {
    it('should answer an unknown route with 404 NOT_FOUND in the envelope, with the request id', async () => {
      const response = await t.http
        .get('/v1/no-such-thing')
        .set('Authorization', creator.authorization);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({
        success: false,
        error: {
          code: 'NOT_FOUND',
          message: expect.any(String),
          requestId: response.headers['x-request-id'],
        },
      });
      expect(response.headers['x-request-id']).toMatch(/^[0-9A-Z]{26}$/);
    });

    it('should answer malformed JSON with 400 VALIDATION_ERROR', async () => {
      const response = await t.http
        .post('/v1/test-probe/echo')
        .set('Authorization', creator.authorization)
        .set('Content-Type', 'application/json')
        .send('{"name": "x",');
      expect(response.status).toBe(400);
      expect(response.body.success).toBe(false);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.message).toMatch(/JSON/);
    });

    it('should answer failed validation with details as a map from field to messages', async () => {
      const response = await t.http
        .post('/v1/test-probe/echo')
        .set('Authorization', creator.authorization)
        .send({ name: '', count: 500, nested: { code: 'toolong' }, url: 'https://x.test' });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      const details = response.body.error.details as Record<string, string[]>;
      expect(Object.keys(details).sort()).toEqual(['count', 'name', 'nested.code', 'url']);
      expect(details.url).toEqual(['url is not a recognised field; use originalUrl']);
      for (const messages of Object.values(details)) {
        expect(messages.length).toBeGreaterThan(0);
        for (const message of messages) expect(typeof message).toBe('string');
      }
    });

    it('should wrap a valid answer in the success envelope', async () => {
      const response = await t.http
        .post('/v1/test-probe/echo')
        .set('Authorization', creator.authorization)
        .send({ name: 'ok', count: 3 });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({ success: true, data: { name: 'ok', count: 3 } });
    });

    it('should answer an unexpected error with 500 INTERNAL_ERROR and no detail or stack', async () => {
      const response = await t.http
        .get('/v1/test-probe/crash')
        .set('Authorization', creator.authorization);
      expect(response.status).toBe(500);
      expect(response.body).toEqual({
        success: false,
        error: {
          code: 'INTERNAL_ERROR',
          message: 'An unexpected error occurred.',
          requestId: expect.any(String),
        },
      });
      expect(response.text).not.toContain('secret internal detail');
    });
  });

  describe('HTTPS', () => {
    it('should redirect plain HTTP reported by a trusted proxy to https with a 301', async () => {
      const response = await t.http
        .get('/v1/health?x=1')
        .set('X-Forwarded-Proto', 'http')
        .set('Host', 'api.linkpilot.io');
      expect(response.status).toBe(301);
      expect(response.headers.location).toBe('https://api.linkpilot.io/v1/health?x=1');
    });

    it('should serve a request the proxy reports as https', async () => {
      await t.http.get('/v1/health').set('X-Forwarded-Proto', 'https').expect(200);
    });

    it('should serve a direct request with no proxy header', async () => {
      await t.http.get('/v1/health').expect(200);
    });

    it('should not redirect when REQUIRE_HTTPS is off, nor for an untrusted peer', async () => {
      const envs: Record<string, string>[] = [{ REQUIRE_HTTPS: 'false' }, { TRUST_PROXY: 'none' }];
      for (const env of envs) {
        const other = await startTestApp(env);
        try {
          await other.http.get('/v1/health').set('X-Forwarded-Proto', 'http').expect(200);
        } finally {
          await other.close();
        }
      }
    });
  });

  describe('CORS', () => {
    it('should allow the service domain family on authenticated endpoints', async () => {
      const response = await t.http
        .get('/v1/account')
        .set('Authorization', creator.authorization)
        .set('Origin', 'https://app.linkpilot.io');
      expect(response.status).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe('https://app.linkpilot.io');
      expect(response.headers['access-control-expose-headers']).toContain('X-RateLimit-Remaining');
    });

    it('should not allow other origins on authenticated endpoints', async () => {
      const response = await t.http
        .get('/v1/account')
        .set('Authorization', creator.authorization)
        .set('Origin', 'https://linkpilot.io.evil.example');
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('should answer a preflight without authentication', async () => {
      const allowed = await t.http
        .options('/v1/account')
        .set('Origin', 'https://app.linkpilot.io')
        .set('Access-Control-Request-Method', 'GET');
      expect(allowed.status).toBe(204);
      expect(allowed.headers['access-control-allow-origin']).toBe('https://app.linkpilot.io');
      expect(allowed.headers['access-control-allow-headers']).toContain('Authorization');

      const refused = await t.http
        .options('/v1/account')
        .set('Origin', 'https://evil.example')
        .set('Access-Control-Request-Method', 'GET');
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe('OpenAPI', () => {
    it('should serve the document with the bearer scheme and the Swagger UI', async () => {
      const document = await t.http.get('/docs-json').expect(200);
      expect(document.body.openapi).toMatch(/^3\./);
      expect(document.body.components.securitySchemes.bearer).toMatchObject({
        type: 'http',
        scheme: 'bearer',
      });
      expect(Object.keys(document.body.paths)).toEqual(
        expect.arrayContaining(['/account', '/health']),
      );
      expect(document.body.components.schemas.AccountResponse.properties).toHaveProperty(
        'clicksRemainingThisPeriod',
      );
      const ui = await t.http.get('/docs').redirects(1);
      expect(ui.status).toBe(200);
      expect(ui.text).toContain('swagger');
    });
  });
});
