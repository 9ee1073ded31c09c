import { isDatabaseUnavailable, isStatementTimeout } from './database-unavailable';

describe(isDatabaseUnavailable.name, () => {
  it.each([
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      true,
    ],
    ['a pool that gave up waiting', new Error('timeout exceeded when trying to connect'), true],
    ['a stalled query', new Error('Query read timeout'), true],
    ['a dropped connection', new Error('Connection terminated unexpectedly'), true],
    [
      'a statement timeout inside a TypeORM error',
      Object.assign(new Error('canceling statement due to statement timeout'), {
        driverError: { code: '57014', message: 'canceling statement due to statement timeout' },
      }),
      false,
    ],
    ['a statement cancelled by an operator', { code: '57014', message: 'user request' }, true],
    ['a server shutting down', { code: '57P01', message: 'terminating connection' }, true],
    ['a unique violation', { code: '23505', message: 'duplicate key' }, false],
    ['a syntax error', { code: '42601', message: 'syntax error' }, false],
    ['a plain bug', new TypeError('x is undefined'), false],
    ['nothing', undefined, false],
  ])('should judge %s: %s', (_name, error, expected) => {
    expect(isDatabaseUnavailable(error)).toBe(expected);
  });
});

describe(isStatementTimeout.name, () => {
  it.each([
    [
      'a statement timeout inside a TypeORM error',
      Object.assign(new Error('query failed'), {
        driverError: { code: '57014', message: 'canceling statement due to statement timeout' },
      }),
      true,
    ],
    ['a bare statement timeout', { code: '57014', message: 'statement timeout' }, true],
    ['a cancel by an operator', { code: '57014', message: 'due to user request' }, false],
    ['a refused connection', { code: 'ECONNREFUSED', message: 'connect' }, false],
    ['a stalled query', new Error('Query read timeout'), false],
    ['nothing', undefined, false],
  ])('should judge %s: %s', (_name, error, expected) => {
    expect(isStatementTimeout(error)).toBe(expected);
  });
});
