import { isKvUnavailable } from './kv-unavailable';

describe(isKvUnavailable.name, () => {
  const named = (name: string, message: string): Error =>
    Object.assign(new Error(message), { name });

  it.each([
    [
      'a command while disconnected',
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
      true,
    ],
    ['a command in flight when the connection dropped', new Error('Connection is closed.'), true],
    [
      'a command out of retries',
      named('MaxRetriesPerRequestError', 'Reached the max retries per request limit'),
      true,
    ],
    [
      'a cluster command while no node answers',
      new Error("Cluster isn't ready and enableOfflineQueue options is false"),
      true,
    ],
    [
      'a cluster command out of retries',
      new Error('Too many Cluster redirections. Last error: Error: Connection is closed.'),
      true,
    ],
    ['a command Redis did not answer in time (a stall)', new Error('Command timed out'), true],
    [
      'a command not sent while Redis is down',
      new Error('Redis unreachable: command not sent'),
      true,
    ],
    ['a script error', new Error('ERR Error running script'), false],
    [
      'keys of two hash slots in one call',
      new Error("CROSSSLOT Keys in request don't hash to the same slot"),
      false,
    ],
    ['a database error', new Error('Connection terminated unexpectedly'), false],
    ['a plain bug', new TypeError('x is undefined'), false],
    ['not an error', "Stream isn't writeable", false],
  ])('should judge %s: %s', (_name, error, expected) => {
    expect(isKvUnavailable(error)).toBe(expected);
  });
});
