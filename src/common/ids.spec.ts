import fc from 'fast-check';
import { isUlid, newUlid, normaliseLinkId } from './ids';

describe(normaliseLinkId.name, () => {
  const ID = '01HZX3J5Q8ZQ2T0W1V6S8K4N2M';

  it.each([
    ['the canonical spelling', ID, ID],
    ['lower case', ID.toLowerCase(), ID],
    ['O for 0 and I, L for 1', ID.replace(/0/g, 'O').replace(/1/, 'I').replace(/1/, 'l'), ID],
    ['a word', 'hello', null],
    ['one character short', ID.slice(1), null],
    ['a U (not in the alphabet)', `U${ID.slice(1)}`, null],
    ['past the 48-bit timestamp', `8${ID.slice(1)}`, null],
    ['a NUL inside', `${ID.slice(0, 25)}\u0000`, null],
    ['an empty string', '', null],
  ])('should read %s', (_name, typed, expected) => {
    expect(normaliseLinkId(typed)).toBe(expected);
  });

  it('should give every case spelling of a minted id that id, and answer only ULIDs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 48 - 1 }),
        fc.array(fc.boolean(), { minLength: 26, maxLength: 26 }),
        (time, lowered) => {
          const id = newUlid(time);
          const typed = [...id].map((c, i) => (lowered[i] ? c.toLowerCase() : c)).join('');
          expect(normaliseLinkId(typed)).toBe(id);
        },
      ),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (typed) => {
        const id = normaliseLinkId(typed);
        expect(id === null || isUlid(id)).toBe(true);
      }),
    );
  });
});
