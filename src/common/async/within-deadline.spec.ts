import { DeadlineExceededError, withinDeadline } from './within-deadline';

describe(withinDeadline.name, () => {
  it('should give the call’s own value or error when it settles in time', async () => {
    await expect(withinDeadline(Promise.resolve(7), 1_000, 'the call')).resolves.toBe(7);
    await expect(
      withinDeadline(Promise.reject(new Error('refused')), 1_000, 'the call'),
    ).rejects.toThrow('refused');
  });

  it('should reject with a DeadlineExceededError naming the call when it does not', async () => {
    const never = new Promise<number>(() => undefined);
    const late = withinDeadline(never, 10, 'Redis');
    await expect(late).rejects.toBeInstanceOf(DeadlineExceededError);
    await expect(late).rejects.toThrow('Redis did not answer within 10 ms');
  });
});
