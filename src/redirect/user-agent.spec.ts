import { userAgentFacts, type UserAgentFacts } from './user-agent';

const UA = {
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  ipad: 'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  androidPhone:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  androidTablet:
    'Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  windowsChrome:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  macSafari:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  instagramIos:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 327.0.0.32.120 (iPhone15,3; iOS 17_4; en_US; en; scale=3.00; 1290x2796; 587016720)',
  facebookAndroid:
    'Mozilla/5.0 (Linux; Android 14; SM-S918B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.0.0 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/460.0.0.48.109;]',
  tiktok:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 BytedanceWebview/d8a21c6',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  bingbot: 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
  facebookPreview: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  twitterPreview: 'Twitterbot/1.0',
  slackPreview: 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
  whatsappPreview: 'WhatsApp/2.23.20.0 A',
  discordPreview: 'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
  curl: 'curl/8.5.0',
};

const HUMAN = { isInAppBrowser: false, isBot: false, isLinkPreview: false };

describe(userAgentFacts.name, () => {
  it.each<[string, string | undefined, UserAgentFacts]>([
    [
      'no User-Agent',
      undefined,
      { device: null, os: null, isInAppBrowser: false, isBot: false, isLinkPreview: false },
    ],
    [
      'an empty User-Agent',
      '',
      { device: null, os: null, isInAppBrowser: false, isBot: false, isLinkPreview: false },
    ],
    ['Safari on an iPhone', UA.iphone, { device: 'mobile', os: 'ios', ...HUMAN }],
    ['Safari on an iPad', UA.ipad, { device: 'tablet', os: 'ios', ...HUMAN }],
    ['Chrome on an Android phone', UA.androidPhone, { device: 'mobile', os: 'android', ...HUMAN }],
    [
      'Chrome on an Android tablet',
      UA.androidTablet,
      { device: 'tablet', os: 'android', ...HUMAN },
    ],
    ['Chrome on Windows', UA.windowsChrome, { device: 'desktop', os: null, ...HUMAN }],
    ['Safari on a Mac', UA.macSafari, { device: 'desktop', os: null, ...HUMAN }],
    [
      "Instagram's webview on iOS",
      UA.instagramIos,
      { device: 'mobile', os: 'ios', isInAppBrowser: true, isBot: false, isLinkPreview: false },
    ],
    [
      "Facebook's webview on Android",
      UA.facebookAndroid,
      { device: 'mobile', os: 'android', isInAppBrowser: true, isBot: false, isLinkPreview: false },
    ],
    [
      "TikTok's webview on iOS",
      UA.tiktok,
      { device: 'mobile', os: 'ios', isInAppBrowser: true, isBot: false, isLinkPreview: false },
    ],
  ])('should read the device of %s', (_case, userAgent, expected) => {
    expect(userAgentFacts(userAgent)).toEqual(expected);
  });

  it.each([
    ['Googlebot', UA.googlebot],
    ['Bingbot', UA.bingbot],
    ["Facebook's link preview", UA.facebookPreview],
    ["Twitter's link preview", UA.twitterPreview],
    ["Slack's link preview", UA.slackPreview],
    ["WhatsApp's link preview", UA.whatsappPreview],
    ["Discord's link preview", UA.discordPreview],
    ['curl', UA.curl],
  ])('should flag %s as a bot', (_case, userAgent) => {
    expect(userAgentFacts(userAgent).isBot).toBe(true);
  });

  it.each([
    ["Facebook's link preview", UA.facebookPreview, true],
    ["Twitter's link preview", UA.twitterPreview, true],
    ["Slack's link preview", UA.slackPreview, true],
    ["WhatsApp's link preview", UA.whatsappPreview, true],
    ["Discord's link preview", UA.discordPreview, true],
    ['Googlebot', UA.googlebot, false],
    ['curl', UA.curl, false],
    ['Safari on an iPhone', UA.iphone, false],
  ])('should tell whether %s is a link preview: %s', (_case, userAgent, isLinkPreview) => {
    expect(userAgentFacts(userAgent).isLinkPreview).toBe(isLinkPreview);
  });

  it('should give the same facts when a user agent is read again from the cache', () => {
    expect(userAgentFacts(UA.iphone)).toEqual(userAgentFacts(`${UA.iphone}`));
  });
});
