// "Save changes" after a "Promote" on the same page: the promote changed the
// weights, and the form shows them and names the promoted version, so a
// later edit (here the name) saves without putting the old weights back and
// without being refused as stale.
import { expect, it } from 'vitest';
import { useSignedInConsole, visit } from '../helpers/browser.js';
import { api, NO_RATE_LIMIT } from '../helpers/routes.js';

const c = useSignedInConsole({ env: NO_RATE_LIMIT });

it('saves an edit made after a promote, keeping the promoted weights', async () => {
  const variants = [{ url: 'https://a.example/', weight: 1 }, { url: 'https://b.example/', weight: 1 }, { url: 'https://c.example/', weight: 1 }];
  const route = (await api(c.server, 'POST', '/v1/routes', { name: 'Promote then save', variants, intercept_level: 'off' })).json;
  const page = c.page;
  await visit(page, `/routes/${route.id}`, 'Promote then save');
  const row = page.locator('table.experiment tr[data-variant="b"]');
  await row.waitFor();
  await row.getByRole('button', { name: 'Promote variant B' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Promote' }).click();
  await expect.poll(() => page.locator('#toast').textContent()).toBe('Variant B promoted to 100 %');
  await expect.poll(() => page.getByLabel('Variant B weight').inputValue()).toBe('100');

  await page.getByLabel('Name').fill('Renamed after promote');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect.poll(() => page.locator('#toast').textContent()).toBe('Route saved');
  const stored = (await api(c.server, 'GET', `/v1/routes/${route.id}`)).json;
  expect(stored.name).toBe('Renamed after promote');
  expect(stored.variants.map((v: { weight: number }) => v.weight)).toEqual([0, 100, 0]);
  expect(await page.locator('form .form-error').count()).toBe(0);
});
