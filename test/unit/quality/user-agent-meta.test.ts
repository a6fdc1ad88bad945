// Meta's fetchers are crawlers; Meta's in-app browsers are people following
// a link. "MetaIAB Facebook" is the Facebook in-app browser's user agent
// since 2025 (iOS, then Android), without FBAN/FBAV; a public crawler list
// (monperrus/crawler-user-agents, the evaluation's source) lists it as a
// crawler since 2026-04, and pattern lists are compiled from such lists:
// this pins the verdict across updates of the pattern dependency.
import { expect, it } from 'vitest';
import { classifyUserAgent, UserAgentCache } from '../../../src/quality/user-agent.js';

it.each([
  'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  'Mozilla/5.0 (compatible; Meta-ExternalHit/1.1; +http://www.facebook.com/externalhit_uatext.php)',
  'Mozilla/5.0 (compatible; meta-externalagent/1.1)',
  'Mozilla/5.0 (compatible; meta-externalfetcher/1.1)',
  'Mozilla/5.0 (compatible; meta-externalads/1.0; +http://www.facebook.com/externalhit_uatext.php)',
  'Mozilla/5.0 (compatible; FacebookCatalog/1.0)',
  'facebookplatform/1.0 (+http://developers.facebook.com)',
  'WhatsApp/2.23.20.0 A',
])('a Meta fetcher is a crawler: %s', (ua) => {
  expect(classifyUserAgent(ua).crawler).toBe(true);
  expect(new UserAgentCache().isCrawler(ua)).toBe(true);
});

it.each([
  // MetaIAB: iOS (2025) and Android (the evaluation's row)
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_6_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/22G100 Safari/604.1 MetaIAB Facebook',
  'Mozilla/5.0 (Linux; Android 16; Pixel 10 Pro XL Build/CP1A.260305.018; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/146.0.7680.174 Mobile Safari/537.36 MetaIAB Facebook',
  'Mozilla/5.0 (Linux; Android 10; MAR-LX1B Build/HUAWEIMAR-L21B; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/144.0.7559.117 Mobile Safari/537.36 IABMV/1 MetaIAB Facebook',
  // FBAN/FBAV (iOS) and FB_IAB (Android), Messenger, Instagram
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/22B83 [FBAN/FBIOS;FBAV/488.0.0.68.101;FBBV/658219612;FBDV/iPhone12,8;FBMD/iPhone;FBSN/iOS;FBSV/18.1;FBSS/2;FBID/phone;FBLC/en_US;FBOP/5;FBRV/0;IABMV/1]',
  'Mozilla/5.0 (Linux; Android 9; SM-G950U Build/PPR1.180610.011; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/80.0.3987.149 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/263.0.0.46.121;]',
  'Mozilla/5.0 (Linux; Android 14; SM-S918B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/125.0.6422.165 Mobile Safari/537.36 [FB_IAB/Orca-Android;FBAV/466.0.0.47.108;]',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/22F76 Instagram 393.1.0.36.70 (iPhone15,3; iOS 18_5; en_US; en; scale=3.00; 1290x2796; IABMV/1; 776538208)',
])('a Meta in-app browser is a person: %s', (ua) => {
  expect(classifyUserAgent(ua)).toEqual({ crawler: false, match: null });
  expect(new UserAgentCache().isCrawler(ua)).toBe(false);
});
