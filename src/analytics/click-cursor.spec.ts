import * as fc from 'fast-check';
import { decodeClickCursor, encodeClickCursor } from './click-cursor';

const cursorArbitrary = fc.record({
  clickedAtMs: fc.integer({ min: 0, max: 8_640_000_000_000 }),
  recordId: fc.stringMatching(/^[0-9A-Z]{26}$/),
  offset: fc.integer({ min: 0, max: 9_999_999_999 }),
});

describe(encodeClickCursor.name, () => {
  it('should decode every cursor it encodes to the same position', () => {
    fc.assert(
      fc.property(cursorArbitrary, (cursor) => {
        expect(decodeClickCursor(encodeClickCursor(cursor))).toEqual(cursor);
      }),
    );
  });

  it('should answer null for any text it did not encode', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (text) => {
        const decoded = decodeClickCursor(text);
        expect(decoded === null || encodeClickCursor(decoded) === text).toBe(true);
      }),
    );
  });

  it.each([
    ['', 'empty'],
    ['bm90IGEgY3Vyc29y', 'another text'],
    [Buffer.from('99999999999999999.ABC.1').toString('base64url'), 'a time past Date'],
    [Buffer.from('1.ABC.1').toString('base64'), 'padded base64'],
    [Buffer.from('1.AB-C.1').toString('base64url'), 'a record id with a dash'],
  ])('should answer null for %j (%s)', (text) => {
    expect(decodeClickCursor(text)).toBeNull();
  });
});
