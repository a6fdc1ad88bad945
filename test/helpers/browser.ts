// Drives the console in the system's headless Chromium (Debian's
// /usr/bin/chromium) through playwright-core, which never downloads a
// browser. Each launch gets a fresh profile (Playwright passes its own
// temporary --user-data-dir); the server's self-signed certificate is
// accepted per context.
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { ROOT } from './ipdb-cache.js';
import { readBootstrap, type StartOptions, startServer, type TestServer } from './server.js';

const CHROMIUM = process.env.SPLITGUARD_TEST_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/**
 * Where the tests write their screenshots: docs/console (which the README
 * links) only when asked (`npm run screenshots`), so that a test run leaves
 * the working tree as it found it; a temporary directory otherwise.
 */
const SHOTS = process.env.SPLITGUARD_SCREENSHOTS === 'docs' ? path.join(ROOT, 'docs', 'console') : path.join(os.tmpdir(), 'splitguard-console-shots');

const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/**
 * `backForwardCache`: keep the cache that Playwright turns off
 * (--disable-back-forward-cache), so that Back shows a page left as it was,
 * as a user's Chromium does. `loopbackHosts`: every host under that domain
 * resolves to 127.0.0.1 (pages of several hosts of one site, served by the
 * test's server).
 */
export function launchChromium(options: { backForwardCache?: boolean; loopbackHosts?: string } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: options.loopbackHosts ? [...CHROMIUM_FLAGS, `--host-resolver-rules=MAP *.${options.loopbackHosts} 127.0.0.1`] : CHROMIUM_FLAGS,
    ...(options.backForwardCache ? { ignoreDefaultArgs: ['--disable-back-forward-cache'] } : {}),
  });
}

export function origin(server: TestServer, thread = 0): string {
  return `https://127.0.0.1:${server.ports[thread]}`;
}

export interface ConsoleContext {
  context: BrowserContext;
  page: Page;
  /** Every URL the page requested, to prove nothing left the server's origin. */
  requests: string[];
  /** Console messages and page errors (CSP violations show up here). */
  problems: string[];
}

/** A new browser context (its own cookies) on the console's login page. */
export async function openConsole(browser: Browser, server: TestServer, viewport = DESKTOP): Promise<ConsoleContext> {
  const context = await browser.newContext({
    baseURL: origin(server),
    ignoreHTTPSErrors: true,
    viewport,
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = await context.newPage();
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto('/console');
  return { context, page, requests, problems };
}

/** Signs in through the form and waits for the app to show its navigation. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/** Signs in as the bootstrap administrator. */
export async function signInAdmin(page: Page, server: TestServer): Promise<void> {
  const boot = readBootstrap(server.dataDir);
  await signIn(page, boot.admin_email, boot.admin_password);
}

/**
 * A file's server and Chromium: registers beforeAll (both started together)
 * and afterAll (the browser closed, then the server). The getters give
 * undefined until that beforeAll has run: read them in hooks and tests, not
 * at the top of the file. A file's own beforeAll registered after this call
 * runs after the start.
 */
export function useConsoleBrowser(options?: StartOptions) {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(options), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  return {
    get server() {
      return server;
    },
    get browser() {
      return browser;
    },
  };
}

/**
 * useConsoleBrowser, with the bootstrap admin signed in to the console
 * (openConsole and signInAdmin in a beforeAll after the start); `page` is
 * that console's page.
 */
export function useSignedInConsole(options?: StartOptions) {
  const ctx = useConsoleBrowser(options);
  let page: Page;
  beforeAll(async () => {
    ({ page } = await openConsole(ctx.browser, ctx.server));
    await signInAdmin(page, ctx.server);
  });
  return {
    get server() {
      return ctx.server;
    },
    get browser() {
      return ctx.browser;
    },
    get page() {
      return page;
    },
  };
}

/** Goes to a console page by its hash path (e.g. '/routes') and waits for its heading. */
export async function visit(page: Page, hashPath: string, heading: string | RegExp): Promise<void> {
  await page.evaluate((p) => {
    window.location.hash = p;
  }, hashPath);
  await page.getByRole('heading', { level: 1, name: heading, exact: typeof heading === 'string' }).waitFor({ timeout: 10_000 });
}

/** Writes SHOTS/<name>.png (the whole page, at the context's width). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  // Let the toast fade and no text cursor blink into the picture.
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    document.getElementById('toast')!.textContent = '';
  });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true, animations: 'disabled' });
}

/** Calls the console API with the page's cookies; `csrf` adds X-CSRF-Token. */
export async function consoleCall(
  page: Page,
  method: string,
  apiPath: string,
  options: { json?: unknown; csrf?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; json: any; headers: Record<string, string> }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.csrf !== undefined) headers['X-CSRF-Token'] = options.csrf;
  const r = await page.context().request.fetch(`/console/api${apiPath}`, {
    method,
    headers,
    data: options.json,
    failOnStatusCode: false,
  });
  const text = await r.text();
  return { status: r.status(), json: text ? JSON.parse(text) : null, headers: r.headers() };
}

/** The session's CSRF token, as the app reads it. */
export async function csrfToken(page: Page): Promise<string> {
  const me = await consoleCall(page, 'GET', '/session');
  expect(me.status).toBe(200);
  return me.json.csrf_token as string;
}
