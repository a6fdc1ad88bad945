// Accessible basics: the login form is reachable and usable by keyboard alone
// with a visible focus ring; the navigation and dialogs work from the
// keyboard; every form control has a label; text keeps at least 4.5:1
// contrast against its background.
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { openConsole, useConsoleBrowser, visit } from '../helpers/browser.js';
import { createRoute } from '../helpers/routes.js';
import { readBootstrap } from '../helpers/server.js';

const ctx = useConsoleBrowser();
let page: Page;
beforeAll(async () => {
  await createRoute(ctx.server, { name: 'Keyboard route' });
  ({ page } = await openConsole(ctx.browser, ctx.server));
});

/** What has focus and how its focus ring looks. */
const focused = () =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const s = getComputedStyle(el);
    return {
      what: el.getAttribute('name') ?? el.getAttribute('aria-label') ?? el.textContent?.trim() ?? el.tagName,
      focusVisible: el.matches(':focus-visible'),
      outline: s.outlineStyle,
      width: Number.parseFloat(s.outlineWidth),
    };
  });

function expectRing(f: Awaited<ReturnType<typeof focused>>): void {
  expect(f.focusVisible).toBe(true);
  expect(f.outline).toBe('solid');
  expect(f.width).toBeGreaterThanOrEqual(2);
}

it('signs in with the keyboard alone, every focused control showing a focus ring', async () => {
  const boot = readBootstrap(ctx.server.dataDir);
  await page.getByLabel('Email').waitFor();
  // The form takes focus on load.
  expect((await focused()).what).toBe('email');
  await page.keyboard.type(boot.admin_email);
  await page.keyboard.press('Tab');
  let f = await focused();
  expect(f.what).toBe('password');
  expectRing(f);
  await page.keyboard.type(boot.admin_password);
  await page.keyboard.press('Tab');
  f = await focused();
  expect(f.what).toBe('Sign in');
  expectRing(f);
  await page.keyboard.press('Shift+Tab');
  expect((await focused()).what).toBe('password');
  await page.keyboard.press('Enter');
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  await page.getByRole('heading', { level: 1, name: 'Routes' }).waitFor();
});

it('skips to the content, reaches the navigation, and moves focus to the new page', async () => {
  await page.reload();
  await page.getByRole('heading', { level: 1, name: 'Routes' }).waitFor();
  await page.keyboard.press('Tab');
  let f = await focused();
  expect(f.what).toBe('Skip to content');
  expectRing(f);
  await page.keyboard.press('Enter');
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
  // Back from the content: the header's controls, then the navigation.
  let steps = 0;
  while ((await focused()).what !== 'IP check' && steps++ < 12) await page.keyboard.press('Shift+Tab');
  expectRing(await focused());
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'IP check' }).waitFor();
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
  await page.keyboard.press('Tab');
  f = await focused();
  expect(f.what).toBe('ips');
  expectRing(f);
});

it('opens a confirmation dialog from the keyboard; Escape cancels it', async () => {
  await visit(page, '/keys', 'Account and API keys');
  const revoke = page.locator('tbody tr', { hasText: 'bootstrap' }).getByRole('button', { name: 'Revoke' });
  await revoke.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  // The safe choice has focus.
  expect((await focused()).what).toBe('Cancel');
  await page.keyboard.press('Escape');
  await expect.poll(() => dialog.count()).toBe(0);
  expect(await page.locator('tbody tr', { hasText: 'bootstrap' }).getByText('active').count()).toBe(1);
});

it('labels every form control on every page', async () => {
  for (const [path, heading] of [
    ['/keys', 'Account and API keys'], ['/routes/new', 'New route'], ['/routes/1', 'Keyboard route'], ['/ip', 'IP check'],
    ['/admin/blacklist', 'ASN blacklist'], ['/admin/accounts', 'Accounts'],
  ]) {
    await visit(page, path, heading);
    const unlabelled = await page.locator('main input, main select, main textarea').evaluateAll((els) =>
      els.filter((el) => (el as HTMLInputElement).labels?.length === 0 && !el.getAttribute('aria-label')).map((el) => el.outerHTML),
    );
    expect(unlabelled, path).toEqual([]);
  }
});

it('keeps text at 4.5:1 contrast or better', async () => {
  await visit(page, '/routes/1', 'Keyboard route');
  const ratios = await page.evaluate(() => {
    const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).slice(0, 4).map(Number);
    const lum = ([r, g, b]: number[]) => {
      const f = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const background = (el: Element | null): number[] => {
      for (; el; el = el.parentElement) {
        const c = rgb(getComputedStyle(el).backgroundColor);
        if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c;
      }
      return [255, 255, 255];
    };
    const out: Record<string, number> = {};
    for (const sel of ['h1', 'dl.facts dt', 'dl.facts dd', '.top nav a', '.top nav a[aria-current]', 'button.danger', 'button[type=submit]', '.hint', 'label', 'a[href="#/routes"]']) {
      const el = document.querySelector(sel);
      if (!el) continue;
      const a = lum(rgb(getComputedStyle(el).color));
      const b = lum(background(el));
      out[sel] = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    }
    return out;
  });
  expect(Object.keys(ratios).length).toBeGreaterThanOrEqual(9);
  for (const [sel, ratio] of Object.entries(ratios)) expect(ratio, sel).toBeGreaterThanOrEqual(4.5);
});
