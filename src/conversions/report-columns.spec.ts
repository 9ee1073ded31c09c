import { conversionFromReportRow } from './report-columns';

describe('conversionFromReportRow', () => {
  it("should read a network report's own column names", () => {
    expect(
      conversionFromReportRow(
        'impact',
        {
          'Action ID': 'IR-1',
          'Action Status': 'Approved',
          SubId1: '01JD5ZQ7X6M3W1H8K2C4N9P0RT',
          'Sale Amount': '99.90',
          Payout: '7.50',
          Currency: 'GBP',
          'Event Date': '2026-11-20 14:03:00',
        },
        0,
      ),
    ).toEqual({
      networkId: 'impact',
      clickId: '01JD5ZQ7X6M3W1H8K2C4N9P0RT',
      orderId: 'IR-1',
      status: 'approved',
      saleAmount: 99.9,
      commission: 7.5,
      currency: 'GBP',
      occurredAt: '2026-11-20T14:03:00Z',
    });
  });
});
