// The console's CSP requires Trusted Types and allows no policy: a string
// given to an HTML sink (innerHTML, insertAdjacentHTML, document.write) or
// to a script's src throws in the page, so markup built from data can never
// run, even if a later change of the app tried to render some. The app
// itself uses no such sink: signed in, every page loads with no violation
// (security-headers.test.ts walks them all).
import { expect, it } from 'vitest';
import { openConsole, signInAdmin, useConsoleBrowser } from '../helpers/browser.js';

const ctx = useConsoleBrowser();

it('refuses strings at HTML and script sinks, and the creation of a policy', async () => {
  const { page, context } = await openConsole(ctx.browser, ctx.server);
  await signInAdmin(page, ctx.server);
  const outcomes = await page.evaluate(() => {
    const tried = (name: string, sink: () => void) => {
      try {
        sink();
        return `${name}: taken`;
      } catch (e) {
        return `${name}: ${(e as Error).name}`;
      }
    };
    const div = document.createElement('div');
    document.body.append(div);
    const payload = '<img src=x onerror="window.__ran = 1">';
    return [
      tried('innerHTML', () => (div.innerHTML = payload)),
      tried('outerHTML', () => (div.outerHTML = payload)),
      tried('insertAdjacentHTML', () => div.insertAdjacentHTML('beforeend', payload)),
      tried('document.write', () => document.write(payload)),
      tried('script src', () => (document.createElement('script').src = '/console/app.js')),
      tried('createPolicy', () => (window as unknown as { trustedTypes: { createPolicy(n: string, p: object): unknown } }).trustedTypes.createPolicy('any', { createHTML: (s: string) => s })),
    ];
  });
  expect(outcomes).toEqual(['innerHTML: TypeError', 'outerHTML: TypeError', 'insertAdjacentHTML: TypeError', 'document.write: TypeError', 'script src: TypeError', 'createPolicy: TypeError']);
  expect(await page.evaluate(() => (window as { __ran?: unknown }).__ran)).toBeUndefined();
  // Text stays text.
  expect(await page.evaluate(() => {
    const p = document.createElement('p');
    p.textContent = '<b>x</b>';
    return p.childNodes.length === 1 && p.firstChild!.nodeType === Node.TEXT_NODE;
  })).toBe(true);
  await context.close();
});
