import Bowser from 'bowser';
import { isbot } from 'isbot';
import { LRUCache } from 'lru-cache';
import type { DeviceType, MobileOs } from '../routing/engine/routing-types';

export interface UserAgentFacts {
  device: DeviceType | null;
  os: MobileOs | null;
  isInAppBrowser: boolean;
  /** A known crawler or link-preview fetcher (isbot's maintained list). */
  isBot: boolean;
  /** A chat or social app fetching the link to show a preview card (a bot, counted apart). */
  isLinkPreview: boolean;
}

// The unfurlers of chat and social apps: they fetch a link when it is pasted, not clicked.
const LINK_PREVIEW =
  /\b(facebookexternalhit|Facebot|Twitterbot|Slackbot|Slack-ImgProxy|WhatsApp|TelegramBot|Discordbot|LinkedInBot|SkypeUriPreview|redditbot|Embedly|Iframely|Pinterestbot|vkShare|Viber|Snap URL Preview|Mastodon|Bluesky|Google-PageRenderer|Applebot)\b/i;

// Webviews of social apps, where cookies and app hand-offs are least reliable.
const IN_APP_BROWSER =
  /\b(Instagram|FBAN|FBAV|FB_IAB|TikTok|musical_ly|BytedanceWebview|Line\/|Snapchat|Pinterest|LinkedInApp|Twitter for)\b/i;

function parse(userAgent: string): UserAgentFacts {
  const parsed = Bowser.parse(userAgent);
  const type = parsed.platform.type;
  const osName = parsed.os.name;
  return {
    device: type === 'mobile' || type === 'tablet' || type === 'desktop' ? type : null,
    os: osName === 'iOS' ? 'ios' : osName === 'Android' ? 'android' : null,
    isInAppBrowser: IN_APP_BROWSER.test(userAgent),
    isBot: isbot(userAgent),
    isLinkPreview: LINK_PREVIEW.test(userAgent),
  };
}

// Parsing costs ~50 µs; visitors share few distinct user agents, so a small cache turns it
// into a map lookup on the redirect path.
const cache = new LRUCache<string, UserAgentFacts>({ max: 20_000 });

export function userAgentFacts(userAgent: string | undefined): UserAgentFacts {
  if (userAgent === undefined || userAgent === '') {
    return { device: null, os: null, isInAppBrowser: false, isBot: false, isLinkPreview: false };
  }
  let facts = cache.get(userAgent);
  if (facts === undefined) {
    facts = parse(userAgent);
    cache.set(userAgent, facts);
  }
  return facts;
}
