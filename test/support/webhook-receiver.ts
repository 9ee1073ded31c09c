import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on 127.0.0.1: records every request, answers the queued statuses (then 200). */
export class Receiver {
  readonly requests: Received[] = [];
  readonly statuses: number[] = [];
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      this.requests.push({
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.statusCode = this.statuses.shift() ?? 200;
      res.end('ok');
    });
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  on(path: string): Received[] {
    return this.requests.filter((request) => request.path === path);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The README's verification: every v1 is an HMAC-SHA256 of "<t>.<body>"; true if one matches. */
export function verifySignature(header: string, body: string, secret: string): boolean {
  const parts = header.split(',').map((part) => part.split('=') as [string, string]);
  const timestamp = parts.find(([key]) => key === 't')?.[1];
  if (timestamp === undefined) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest();
  return parts
    .filter(([key]) => key === 'v1')
    .some(([, value]) => {
      const given = Buffer.from(value, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}
