import { parseCsv } from './csv-rows';

describe('parseCsv', () => {
  it('should read quoted fields, doubled quotes, CRLF and blank lines, with line numbers', () => {
    const csv =
      '\uFEFFOrder ID,Commission,Note\r\nA-1,"1,50","say ""hi"""\r\n\r\nA-2,2,"two\nlines"\nA-3,3,';

    expect(parseCsv(csv)).toEqual([
      { line: 2, fields: { 'Order ID': 'A-1', Commission: '1,50', Note: 'say "hi"' } },
      { line: 4, fields: { 'Order ID': 'A-2', Commission: '2', Note: 'two\nlines' } },
      { line: 6, fields: { 'Order ID': 'A-3', Commission: '3', Note: '' } },
    ]);
  });

  it("should take the header's semicolons as the separator", () => {
    expect(parseCsv('orderId;commission\nB-1;4,5\n')).toEqual([
      { line: 2, fields: { orderId: 'B-1', commission: '4,5' } },
    ]);
  });

  it('should answer nothing for an empty file or a header alone', () => {
    expect(parseCsv('')).toEqual([]);
    expect(parseCsv('orderId,commission\n')).toEqual([]);
  });
});
