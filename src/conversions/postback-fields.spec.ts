import { conversionFromPostback } from './postback-fields';

const NOW = Date.parse('2026-11-26T10:00:00Z');

describe('conversionFromPostback', () => {
  it('should read the fields without case and map the network status words', () => {
    expect(
      conversionFromPostback(
        'impact',
        {
          ClickId: '01JD5ZQ7X6M3W1H8K2C4N9P0RT',
          ORDERID: 'A-1',
          status: 'LOCKED',
          saleAmount: '1,234.50',
          commission: '12,5',
          currency: 'eur',
          occurredAt: '1764150000',
        },
        NOW,
      ),
    ).toEqual({
      networkId: 'impact',
      clickId: '01JD5ZQ7X6M3W1H8K2C4N9P0RT',
      orderId: 'A-1',
      status: 'approved',
      saleAmount: 1234.5,
      commission: 12.5,
      currency: 'EUR',
      occurredAt: new Date(1764150000 * 1000).toISOString(),
    });
  });

  it('should default to a pending USD conversion of now, and pass odd values on to validation', () => {
    const item = conversionFromPostback(
      'cj',
      { orderId: ['B-2', 'B-3'], commission: 'ten', status: 'weird' },
      NOW,
    );

    expect(item).toEqual({
      networkId: 'cj',
      clickId: null,
      orderId: 'B-2',
      status: 'weird',
      saleAmount: 0,
      commission: 'ten',
      currency: 'USD',
      occurredAt: new Date(NOW).toISOString(),
    });
  });

  it('should map every reversal word to reversed', () => {
    for (const word of ['declined', 'Rejected', 'cancelled', 'corrected', 'reversed']) {
      expect(conversionFromPostback('awin', { status: word }, NOW).status).toBe('reversed');
    }
  });
});
