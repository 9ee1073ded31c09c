import type { Test } from 'supertest';
import type { TestApp } from './test-app';

export const DESKTOP_BROWSER_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';

/** A visitor's user agent by device class (and a crawler's), for tests of what the edge reads. */
export const VISITOR_USER_AGENTS = {
  desktop: DESKTOP_BROWSER_UA,
  ios: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  android:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
  bot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
};

let nextAddress = 1;

/**
 * A visitor's request to the edge, as a trusted proxy forwards it: a desktop browser from a
 * fresh documentation address each time (so the per-IP window never caps a test that does not
 * test it), redirects not followed. `headers` override any of these.
 */
export function edgeVisit(
  t: TestApp,
  path: string,
  headers: Record<string, string> = {},
  method: 'GET' | 'HEAD' = 'GET',
): Test {
  const address = nextAddress++;
  const request = method === 'GET' ? t.http.get(path) : t.http.head(path);
  return request
    .set({
      'User-Agent': DESKTOP_BROWSER_UA,
      'X-Forwarded-For': `198.18.${(address >> 8) & 255}.${address & 255}`,
      ...headers,
    })
    .redirects(0);
}
