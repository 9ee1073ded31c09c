import { Writable } from 'node:stream';
import { createAppLogger, humanLines, NestPinoLogger } from './app-logger';

/** A logger writing into an array, one parsed JSON object per line. */
function recordLines(): { lines: Record<string, unknown>[]; logger: NestPinoLogger } {
  const lines: Record<string, unknown>[] = [];
  const pino = createAppLogger('info', {
    write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  return { lines, logger: new NestPinoLogger(pino) };
}

describe(NestPinoLogger.name, () => {
  it('should write one JSON line with level, time, context and message', () => {
    const { lines, logger } = recordLines();
    logger.log('Linkpilot listening', 'Main');
    expect(lines).toEqual([
      {
        level: 'info',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        pid: process.pid,
        context: 'Main',
        msg: 'Linkpilot listening',
      },
    ]);
  });

  it('should never write an API key, a URL query or a client address', () => {
    const { lines, logger } = recordLines();
    logger.error(
      'Key lp_live_sk_SECRET123 from 198.51.100.23 on https://shop.example/p?visitor=alice',
      new Error('Bearer lp_test_sk_SECRET456 refused for 2001:db8::7'),
      'Auth',
    );
    logger.warn({ apiKey: 'lp_live_sk_SECRET789', clientIp: '198.51.100.23', linkId: 'L1' });
    const text = JSON.stringify(lines);
    for (const secret of ['SECRET', '198.51.100.23', '2001:db8::7', 'alice']) {
      expect(text).not.toContain(secret);
    }
    expect(lines[0]).toMatchObject({ level: 'error', context: 'Auth' });
    expect(lines[0].err).toMatchObject({ type: 'Error' });
    expect(lines[1]).toMatchObject({
      level: 'warn',
      data: { apiKey: '[redacted]', clientIp: '[redacted]', linkId: 'L1' },
    });
  });

  it("should write a plain object's keys as fields, the server's address unmasked", () => {
    const { lines, logger } = recordLines();
    logger.log(
      'Linkpilot listening',
      { host: '127.0.0.1', port: 3000, clientIp: '198.51.100.23' },
      'Main',
    );
    expect(lines[0]).toMatchObject({
      msg: 'Linkpilot listening',
      context: 'Main',
      host: '127.0.0.1',
      port: 3000,
      clientIp: '[redacted]',
    });
  });

  it('should leave out levels below the one configured', () => {
    const { lines, logger } = recordLines();
    logger.debug('not written');
    logger.verbose('not written either');
    expect(lines).toEqual([]);
  });
});

describe(humanLines.name, () => {
  it('should turn a JSON line into a readable one', () => {
    let written = '';
    const out = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        written += chunk.toString();
        callback();
      },
    });
    humanLines(out).write(
      '{"level":"info","time":"2026-11-25T02:00:00.123Z","pid":1,"context":"Http","msg":"request","status":200}\n',
    );
    expect(written).toBe('02:00:00.123 INFO  [Http] request status=200\n');
  });
});
