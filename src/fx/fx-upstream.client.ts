import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { Agent, interceptors, request } from 'undici';

/** Budget of one upstream call, connection to last byte. */
const FX_REQUEST_TIMEOUT_MS = 5000;
/** The fallback's usd.json is about 15 KB; anything far bigger is not a rate table. */
const MAX_BODY_BYTES = 1024 * 1024;

export type UpstreamAnswer = { ok: true; body: unknown } | { ok: false; reason: string };

/**
 * GETs an FX upstream's JSON. Never throws: a failure comes back with a reason that names
 * the kind of failure only, never the URL (a paid feed carries its key in the URL).
 */
@Injectable()
export class FxUpstreamClient implements OnModuleDestroy {
  private readonly dispatcher = new Agent({
    connect: { timeout: FX_REQUEST_TIMEOUT_MS },
  }).compose(interceptors.redirect({ maxRedirections: 3 }));

  async getJson(url: string): Promise<UpstreamAnswer> {
    let text: string;
    try {
      const response = await request(url, {
        dispatcher: this.dispatcher,
        signal: AbortSignal.timeout(FX_REQUEST_TIMEOUT_MS),
        headers: { accept: 'application/json', 'user-agent': 'linkpilot-fx-refresh' },
      });
      if (response.statusCode !== 200) {
        await response.body.dump();
        return { ok: false, reason: `HTTP ${response.statusCode}` };
      }
      text = await readCapped(response.body);
    } catch (error) {
      return { ok: false, reason: describeRequestError(error) };
    }
    try {
      return { ok: true, body: JSON.parse(text) as unknown };
    } catch {
      return { ok: false, reason: 'body is not valid JSON' };
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.dispatcher.close();
  }
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      body.destroy();
      throw new BodyTooLargeError();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

class BodyTooLargeError extends Error {}

function describeRequestError(error: unknown): string {
  if (error instanceof BodyTooLargeError) return `body larger than ${MAX_BODY_BYTES} bytes`;
  if (error instanceof Error) {
    if (error.name === 'TimeoutError' || error.name === 'AbortError') {
      return `no answer within ${FX_REQUEST_TIMEOUT_MS} ms`;
    }
    const code = (error as { code?: unknown }).code;
    if (code === 'ECONNREFUSED') return 'connection refused';
    if (typeof code === 'string') return `request failed (${code})`;
  }
  return 'request failed';
}
