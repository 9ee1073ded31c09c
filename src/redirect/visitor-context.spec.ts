import {
  BOT_SCORE_THRESHOLD,
  readVisitor,
  type EdgeHeaders,
  type EdgeVisitor,
} from './visitor-context';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const SLACK_PREVIEW = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)';

const headers = (overrides: Partial<EdgeHeaders> = {}): EdgeHeaders => ({
  userAgent: DESKTOP,
  country: undefined,
  botScore: undefined,
  ...overrides,
});

const desktopIn = (country: string | null): EdgeVisitor => ({
  visitor: { country, device: 'desktop', os: null, isInAppBrowser: false },
  exclusion: null,
});

describe(readVisitor.name, () => {
  describe('with a trusted proxy', () => {
    it.each<[string, string | undefined, string | null]>([
      ['an upper-case code', 'GB', 'GB'],
      ['a lower-case code', 'gb', 'GB'],
      ['a code with spaces around', ' in ', 'IN'],
      ['no header', undefined, null],
      ['an empty header', '', null],
      ['an unassigned code', 'UK', null],
      ["Cloudflare's unknown country", 'XX', null],
      ["Cloudflare's Tor exit", 'T1', null],
      ['three letters', 'GBR', null],
      ['garbage', '<script>', null],
    ])('should read the country when the header holds %s', (_case, country, expected) => {
      expect(readVisitor(headers({ country }), true, false)).toEqual(desktopIn(expected));
    });

    it.each<[string, string | undefined, boolean]>([
      ['no score', undefined, false],
      ['0 (not scored)', '0', false],
      ['1 (surely a bot)', '1', true],
      ['15', '15', true],
      [`${BOT_SCORE_THRESHOLD - 1} (just under the threshold)`, `${BOT_SCORE_THRESHOLD - 1}`, true],
      [`${BOT_SCORE_THRESHOLD} (the threshold)`, `${BOT_SCORE_THRESHOLD}`, false],
      ['99 (surely human)', '99', false],
      ['a negative score', '-5', false],
      ['garbage', 'bot', false],
      ['an empty value', '', false],
      ['infinity', 'Infinity', false],
    ])('should read the bot score when it is %s', (_case, botScore, isBot) => {
      const edge = readVisitor(headers({ country: 'US', botScore }), true, false);
      expect(edge.exclusion).toBe(isBot ? 'bot_score' : null);
    });
  });

  describe('without a trusted proxy', () => {
    it('should ignore the edge headers when the peer is not a trusted proxy', () => {
      const spoofed = headers({ country: 'GB', botScore: '1' });
      expect(readVisitor(spoofed, false, false)).toEqual(desktopIn(null));
    });

    it('should know nothing of a visitor with neither User-Agent nor trusted country', () => {
      expect(readVisitor(headers({ userAgent: undefined, country: 'GB' }), false, false)).toEqual({
        visitor: null,
        exclusion: null,
      });
    });
  });

  it.each<[string, Partial<EdgeHeaders>, boolean, boolean, EdgeVisitor]>([
    [
      'an iPhone in India',
      { userAgent: IPHONE, country: 'IN' },
      true,
      false,
      {
        visitor: { country: 'IN', device: 'mobile', os: 'ios', isInAppBrowser: false },
        exclusion: null,
      },
    ],
    [
      'a country but no User-Agent (desktop assumed)',
      { userAgent: undefined, country: 'DE' },
      true,
      false,
      desktopIn('DE'),
    ],
    [
      'an empty User-Agent and no country',
      { userAgent: '' },
      true,
      false,
      { visitor: null, exclusion: null },
    ],
    ['a HEAD request', { country: 'US' }, true, true, { ...desktopIn('US'), exclusion: 'head' }],
    [
      'a HEAD request with nothing known',
      { userAgent: undefined },
      false,
      true,
      { visitor: null, exclusion: 'head' },
    ],
    [
      'a known crawler',
      { userAgent: GOOGLEBOT, country: 'US', botScore: '99' },
      true,
      false,
      {
        visitor: { country: 'US', device: 'desktop', os: null, isInAppBrowser: false },
        exclusion: 'bot_user_agent',
      },
    ],
    [
      'a link preview through an untrusted peer',
      { userAgent: SLACK_PREVIEW },
      false,
      false,
      { visitor: null, exclusion: 'link_preview' },
    ],
  ])('should read %s', (_case, overrides, isFromTrustedProxy, isHead, expected) => {
    expect(readVisitor(headers(overrides), isFromTrustedProxy, isHead)).toEqual(expected);
  });
});
