import type { ClickAdmissionRequest } from './click-admission';
import {
  answerOf,
  BatchReply,
  ClickAdmissionBatches,
  MAX_CLICKS_PER_BATCH,
} from './click-admission-batch';

/** A request told apart by its record and grouped by its stream; nothing else is read. */
const click = (record: string, stream = 's'): ClickAdmissionRequest =>
  ({ record, keys: { stream } }) as unknown as ClickAdmissionRequest;

/** Answers each click `counted` with its record's number as `used`. */
function recordingSender() {
  const calls: string[][] = [];
  const send = (requests: ClickAdmissionRequest[]): Promise<BatchReply> => {
    calls.push(requests.map((request) => request.record));
    return Promise.resolve(requests.flatMap((request) => ['counted', Number(request.record)]));
  };
  return { calls, send };
}

const answer = async (batches: ClickAdmissionBatches, request: ClickAdmissionRequest) => {
  const ticket = batches.enqueue(request);
  return answerOf(await ticket.reply, ticket.index);
};

describe('ClickAdmissionBatches', () => {
  it('should send the clicks of one turn in one call, and give each click its own answer', async () => {
    const { calls, send } = recordingSender();
    const batches = new ClickAdmissionBatches(send, () => '');
    const answers = await Promise.all(
      ['1', '2', '3'].map((record) => answer(batches, click(record))),
    );
    expect(calls).toEqual([['1', '2', '3']]);
    expect(answers).toEqual([
      ['counted', 1],
      ['counted', 2],
      ['counted', 3],
    ]);
    // The next turn's clicks make the next call.
    await answer(batches, click('4'));
    expect(calls).toEqual([['1', '2', '3'], ['4']]);
  });

  it('should send nothing before the turn ends', async () => {
    const { calls, send } = recordingSender();
    const batches = new ClickAdmissionBatches(send, () => '');
    const pending = answer(batches, click('1'));
    await Promise.resolve();
    expect(calls).toEqual([]);
    await pending;
    expect(calls).toEqual([['1']]);
  });

  it('should keep groups apart (a cluster’s slots) and keep each group’s order', async () => {
    const { calls, send } = recordingSender();
    const batches = new ClickAdmissionBatches(send, (request) => request.keys.stream);
    await Promise.all([
      answer(batches, click('1', 'a')),
      answer(batches, click('2', 'b')),
      answer(batches, click('3', 'a')),
    ]);
    expect(calls).toEqual([['1', '3'], ['2']]);
  });

  it('should send a full batch at once and start another', async () => {
    const { calls, send } = recordingSender();
    const batches = new ClickAdmissionBatches(send, () => '');
    const records = Array.from({ length: MAX_CLICKS_PER_BATCH + 1 }, (_, index) => String(index));
    const pending = records.map((record) => answer(batches, click(record)));
    expect(calls).toEqual([records.slice(0, MAX_CLICKS_PER_BATCH)]);
    const answers = await Promise.all(pending);
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
      answer(rejecting, click('1')),
      answer(rejecting, click('2')),
      answer(throwing, click('3')),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
  });
});
