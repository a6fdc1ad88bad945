// A refused "Promote" is shown on the route page: the route is deleted
// through the API after the page loaded, and promoting one of its variants
// then puts the server's answer in an alert above the experiment table
// instead of failing silently.
import { expect, it } from 'vitest';
import { useSignedInConsole, visit } from '../helpers/browser.js';
import { api, NO_RATE_LIMIT } from '../helpers/routes.js';

const c = useSignedInConsole({ env: NO_RATE_LIMIT });

it('shows the error when the promote is refused', async () => {
  const route = (await api(c.server, 'POST', '/v1/routes', {
    name: 'Promote refused', page_a: 'https://a.example/', page_b: 'https://b.example/', intercept_level: 'off',
  })).json;
  await visit(c.page, `/routes/${route.id}`, 'Promote refused');
  const row = c.page.locator('table.experiment tr[data-variant="b"]');
  await row.waitFor();
  expect((await api(c.server, 'DELETE', `/v1/routes/${route.id}`)).status).toBe(204);

  await row.getByRole('button', { name: 'Promote variant B' }).click();
  await c.page.getByRole('dialog').getByRole('button', { name: 'Promote' }).click();
  const alert = c.page.locator('.form-error[role="alert"]');
  await alert.waitFor({ timeout: 5000 });
  expect(await alert.textContent()).toBe(`Variant B was not promoted: not found: route ${route.id} does not exist`);
  expect(await c.page.locator('#toast').textContent()).not.toMatch(/promoted to 100/);
});
