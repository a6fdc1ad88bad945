// The IP check's `signals.user_agent.match` names the product token that
// matched, without its version (docs/api.md, the check result): a pattern
// that takes a whole simple user agent took its version too when it was
// written after a space ("Slackbot-LinkExpanding 1.0").
import { expect, it } from 'vitest';
import { classifyUserAgent } from '../../../src/quality/user-agent.js';

it.each([
  ['Slackbot-LinkExpanding 1.0', 'Slackbot-LinkExpanding'],
  ['Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', 'Slackbot-LinkExpanding'],
  ['curl/7.68.0', 'curl'],
  ['Wget/1.21', 'Wget'],
  ['python-requests/2.31.0', 'python-requests'],
  ['Go-http-client/1.1', 'Go-http-client'],
  ['Java/1.8.0_151', 'Java'],
  ['okhttp/4.9.0', 'okhttp'],
  ['PostmanRuntime/7.36.0', 'PostmanRuntime'],
  ['Apache-HttpClient/4.5.13 (Java/11)', 'Apache-HttpClient'],
  ['facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)', 'facebookexternalhit'],
  ['Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)', 'Discordbot'],
  ['Google Web Preview', 'Google'],
])('%s → %s', (ua, match) => {
  expect(classifyUserAgent(ua)).toEqual({ crawler: true, match });
});
