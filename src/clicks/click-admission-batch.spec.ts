import type { ClickAdmissionRequest } from './click-admission';
import {
  AdmissionAnswer,
  ClickAdmissionBatches,
  MAX_CLICKS_PER_BATCH,
} from './click-admission-batch';

/** A request told apart by its record and grouped by its stream; nothing else is read. */
const click = (record: string, stream = 's'): ClickAdmissionRequest =>
  ({ record, keys: { stream } }) as unknown as ClickAdmissionRequest;

/** Answers each click `counted` with its record's number as `used`. */
function recordingSender() {
  const calls: string[][] = [];
  const send = (requests: readonly ClickAdmissionRequest[]): Promise<AdmissionAnswer[]> => {
    calls.push(requests.map((request) => request.record));
    return Promise.resolve(requests.map((request) => ['counted', Number(request.record)]));
  };
  return { calls, send };
}

describe('ClickAdmissionBatches', () => {
  it('should send the clicks of one turn in one call, and give each click its own answer', async () => {
    const { calls, send } = recordingSender();
    const batches = new ClickAdmissionBatches(send, () => '');
    const answers = await Promise.all(
      ['1', '2', '3'].map((record) => batches.admit(click(record))),
    );
    expect(calls).toEqual([['1', '2', '3']]);
    expect(answers).toEqual([
      ['counted', 1],
      ['counted', 2],
      ['counted', 3],
    ]);
    // The next turn's clicks make the next call.
    await batches.admit(click('4'));
    expect(calls).toEqual([['1', '2', '3'], ['4']]);
  });

  it('should send nothing before the turn ends', async () => {
    const { calls, send } = recordingSender();
    const batches = new ClickAdmissionBatches(send, () => '');
    const pending = batches.admit(click('1'));
    await Promise.resolve();
    expect(calls).toEqual([]);
    await pending;
    expect(calls).toEqual([['1']]);
  });

  it('should keep groups apart (a cluster’s slots) and keep each group’s order', async () => {
    const { calls, send } = recordingSender();
    const batches = new ClickAdmissionBatches(send, (request) => request.keys.stream);
    await Promise.all([
      batches.admit(click('1', 'a')),
      batches.admit(click('2', 'b')),
      batches.admit(click('3', 'a')),
    ]);
    expect(calls).toEqual([['1', '3'], ['2']]);
  });

  it('should send a full batch and the rest in another', async () => {
    const { calls, send } = recordingSender();
    const batches = new ClickAdmissionBatches(send, () => '');
    const records = Array.from({ length: MAX_CLICKS_PER_BATCH + 1 }, (_, index) => String(index));
    const answers = await Promise.all(records.map((record) => batches.admit(click(record))));
    expect(calls).toEqual([records.slice(0, MAX_CLICKS_PER_BATCH), [String(MAX_CLICKS_PER_BATCH)]]);
    expect(answers.map(([, used]) => used)).toEqual(records.map(Number));
  });

  it('should fail every click of a failed call, whether it rejects or throws', async () => {
    const rejecting = new ClickAdmissionBatches(
      () => Promise.reject(new Error('down')),
      () => '',
    );
    const throwing = new ClickAdmissionBatches(
      () => {
        throw new Error('refused');
      },
      () => '',
    );
    const results = await Promise.allSettled([
      rejecting.admit(click('1')),
      rejecting.admit(click('2')),
      throwing.admit(click('3')),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
  });
});
