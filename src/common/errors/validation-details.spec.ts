import { ValidationError } from 'class-validator';
import { ErrorDetails } from './app-error';
import { toValidationDetails } from './validation-details';

/** A class-validator error built by hand, as the ValidationPipe would produce it. */
function validationError(
  property: string,
  constraints?: Record<string, string>,
  children: ValidationError[] = [],
): ValidationError {
  return Object.assign(new ValidationError(), { property, constraints, children });
}

const whitelist = (property: string): ValidationError =>
  validationError(property, { whitelistValidation: `property ${property} should not exist` });

describe(toValidationDetails.name, () => {
  it.each<[string, ValidationError[], ErrorDetails]>([
    ['there are no errors', [], {}],
    [
      'one field breaks one rule',
      [validationError('originalUrl', { isUrl: 'originalUrl must be a URL address' })],
      { originalUrl: ['originalUrl must be a URL address'] },
    ],
    [
      'one field breaks two rules',
      [
        validationError('title', {
          isString: 'title must be a string',
          maxLength: 'title must be shorter than or equal to 200 characters',
        }),
      ],
      {
        title: ['title must be a string', 'title must be shorter than or equal to 200 characters'],
      },
    ],
    [
      'two fields are wrong',
      [
        validationError('originalUrl', { isUrl: 'originalUrl must be a URL address' }),
        validationError('preset', {
          isIn: 'preset must be one of default, link_in_bio, long_form',
        }),
      ],
      {
        originalUrl: ['originalUrl must be a URL address'],
        preset: ['preset must be one of default, link_in_bio, long_form'],
      },
    ],
    [
      'a nested object field is wrong',
      [
        validationError('utmOverride', undefined, [
          validationError('utm_source', { isString: 'utm_source must be a string' }),
        ]),
      ],
      { 'utmOverride.utm_source': ['utm_source must be a string'] },
    ],
    [
      'an item of an array is wrong',
      [
        validationError('links', undefined, [
          validationError('3', undefined, [
            validationError('originalUrl', { isUrl: 'originalUrl must be a URL address' }),
          ]),
        ]),
      ],
      { 'links.3.originalUrl': ['originalUrl must be a URL address'] },
    ],
    [
      'a parent and its child both have messages',
      [
        validationError('links', { arrayMaxSize: 'links must contain no more than 100 elements' }, [
          validationError('0', undefined, [
            validationError('title', { isString: 'title must be a string' }),
          ]),
        ]),
      ],
      {
        links: ['links must contain no more than 100 elements'],
        'links.0.title': ['title must be a string'],
      },
    ],
    [
      'the same field is reported twice',
      [
        validationError('deviceType', {
          isIn: 'deviceType must be one of desktop, mobile, tablet',
        }),
        validationError('deviceType', { isString: 'deviceType must be a string' }),
      ],
      {
        deviceType: [
          'deviceType must be one of desktop, mobile, tablet',
          'deviceType must be a string',
        ],
      },
    ],
    ['a field has an empty constraints object', [validationError('title', {})], {}],
  ])('should flatten the errors when %s', (_name, errors, expected) => {
    expect(toValidationDetails(errors)).toEqual(expected);
  });

  it.each<[string, string]>([
    ['url', 'url is not a recognised field; use originalUrl'],
    ['country', 'country is not a recognised field; use visitorCountry'],
    ['device', 'device is not a recognised field; use deviceType'],
    ['colour', 'colour is not a recognised field'],
  ])('should explain the unknown field when the body has %j', (property, expected) => {
    expect(toValidationDetails([whitelist(property)])).toEqual({ [property]: [expected] });
  });

  it('should name the [S] field inside a bulk item when the item uses the [G] name url', () => {
    const errors = [
      validationError('links', undefined, [validationError('0', undefined, [whitelist('url')])]),
    ];

    expect(toValidationDetails(errors)).toEqual({
      'links.0.url': ['url is not a recognised field; use originalUrl'],
    });
  });

  it('should prefix every path when given a parent path', () => {
    expect(
      toValidationDetails(
        [validationError('limit', { max: 'limit must not be greater than 100' })],
        'query',
      ),
    ).toEqual({ 'query.limit': ['limit must not be greater than 100'] });
  });
});
