// "Save changes" on the route page after the route was edited elsewhere: the
// form sends the whole variant list, so saving a weight from a page loaded
// before the edit would put back the list as it loaded it (the URL changed
// elsewhere reverted). The page names the version its form showed
// (If-Match): the save is refused with an alert saying the route changed
// and to reload, and the edit made elsewhere stays. After a reload the same
// change saves.
import { expect, it } from 'vitest';
import { useSignedInConsole, visit } from '../helpers/browser.js';
import { api, NO_RATE_LIMIT } from '../helpers/routes.js';

const c = useSignedInConsole({ env: NO_RATE_LIMIT });

const stored = async (id: number) => (await api(c.server, 'GET', `/v1/routes/${id}`)).json.variants;

it('refuses to save over an edit made since the form loaded, and keeps that edit', async () => {
  const variants = [{ url: 'https://a.example/', weight: 1 }, { url: 'https://b.example/', weight: 1 }, { url: 'https://c.example/old', weight: 1 }];
  const route = (await api(c.server, 'POST', '/v1/routes', { name: 'Save after edit', variants, intercept_level: 'off' })).json;
  await visit(c.page, `/routes/${route.id}`, 'Save after edit');
  await c.page.getByLabel('Variant A weight').waitFor();

  // Elsewhere: C moves.
  const moved = [variants[0], variants[1], { url: 'https://c.example/NEW', weight: 1 }];
  expect((await api(c.server, 'PUT', `/v1/routes/${route.id}`, { variants: moved })).status).toBe(200);

  await c.page.getByLabel('Variant A weight').fill('5');
  await c.page.getByRole('button', { name: 'Save changes' }).click();
  const alert = c.page.locator('form .form-error[role="alert"]');
  await alert.waitFor({ timeout: 5000 });
  expect(await alert.textContent()).toBe('the route has changed since this form was loaded; reload the page to see it, then make your change again');
  expect(await stored(route.id)).toEqual(moved.map((v, i) => ({ key: 'abc'[i], ...v })));

  // Reloaded, the form shows the route as stored, and the same change saves.
  await c.page.reload();
  await c.page.getByRole('heading', { level: 1, name: 'Save after edit', exact: true }).waitFor({ timeout: 10_000 });
  expect(await c.page.getByLabel('Variant C URL').inputValue()).toBe('https://c.example/NEW');
  await c.page.getByLabel('Variant A weight').fill('5');
  await c.page.getByRole('button', { name: 'Save changes' }).click();
  await expect.poll(() => stored(route.id), { timeout: 5000 }).toEqual([
    { key: 'a', url: 'https://a.example/', weight: 5 },
    { key: 'b', url: 'https://b.example/', weight: 1 },
    { key: 'c', url: 'https://c.example/NEW', weight: 1 },
  ]);
  await expect.poll(() => c.page.locator('#toast').textContent()).toBe('Route saved');
});
