import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake upstream answers next: a status and a body (an object is sent as JSON). */
export interface UpstreamReply {
  status: number;
  body: unknown;
}

/**
 * A real HTTP server on 127.0.0.1 (port 0) standing in for an FX upstream: the test sets
 * what it answers and counts what it was asked.
 */
export interface FakeFxUpstream {
  url: string;
  requestCount: number;
  reply(next: UpstreamReply): void;
  close(): Promise<void>;
}

export async function startFakeFxUpstream(path: string): Promise<FakeFxUpstream> {
  let next: UpstreamReply = { status: 503, body: { error: 'not configured' } };
  const upstream = { url: '', requestCount: 0 } as FakeFxUpstream;
  const server = http.createServer((request, response) => {
    upstream.requestCount += 1;
    if (request.url !== path) {
      response.writeHead(404).end();
      return;
    }
    const text = typeof next.body === 'string' ? next.body : JSON.stringify(next.body);
    response.writeHead(next.status, { 'content-type': 'application/json' }).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  upstream.reply = (reply) => {
    next = reply;
  };
  upstream.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return upstream;
}

/** A loopback URL nothing listens on: connections to it are refused at once. */
export async function refusedUrl(path: string): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}${path}`;
}
