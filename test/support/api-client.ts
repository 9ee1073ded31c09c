import type { Test } from 'supertest';
import type { TestCreator } from '../factories/creator.factory';
import type { TestApp } from './test-app';

/** Requests made with one creator's API key. */
export interface ApiClient {
  get(path: string): Test;
  post(path: string, body?: unknown): Test;
  patch(path: string, body?: unknown): Test;
  delete(path: string): Test;
}

/** Supertest calls against the app, each carrying `creator`'s Bearer key. */
export function createApiClient(t: TestApp, creator: TestCreator): ApiClient {
  const auth = (test: Test): Test => test.set('Authorization', creator.authorization);
  const withBody = (test: Test, body: unknown): Test =>
    body === undefined ? test : test.send(body as object);
  return {
    get: (path) => auth(t.http.get(path)),
    post: (path, body) => withBody(auth(t.http.post(path)), body),
    patch: (path, body) => withBody(auth(t.http.patch(path)), body),
    delete: (path) => auth(t.http.delete(path)),
  };
}
