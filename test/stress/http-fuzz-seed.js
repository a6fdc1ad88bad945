// Seeds a data directory for the HTTP fuzzer (http-fuzz.js) before the
// server starts on it: plain accounts with one key and a few routes each,
// admin accounts, and one account whose key has been replaced (the old key
// is revoked). Prints what it made as one JSON object on stdout. Run as its
// own process (it opens the storage through dist/):
//
//   node test/stress/http-fuzz-seed.js DATA_DIR PLAIN ADMINS ROUTES_PER_ACCOUNT
import { openStorage } from '../../dist/store/storage.js';

const [dataDir, plain, admins, perAccount] = process.argv.slice(2);
if (!dataDir) {
  console.error('usage: http-fuzz-seed.js DATA_DIR PLAIN ADMINS ROUTES_PER_ACCOUNT');
  process.exit(2);
}

const storage = await openStorage(dataDir);
const out = { plain: [], admins: [], revoked: [] };
// Accounts and keys as concurrent asynchronous writes (they share commits),
// then routes, one at a time per account (each reads the account's count),
// all accounts at once.
const made = await Promise.all(
  Array.from({ length: Number(plain) }, async (_, i) => {
    const account = await storage.accounts.create(`fuzz ${i}`);
    return { account, key: (await storage.keys.create(account.id, 'fuzz', false)).token };
  }),
);
out.admins = await Promise.all(
  Array.from({ length: Number(admins) }, async (_, i) => {
    const account = await storage.accounts.create(`fuzz admin ${i}`, undefined, true);
    return { id: account.id, key: (await storage.keys.create(account.id, 'fuzz', true)).token, routes: [] };
  }),
);
for (let i = 0; i < 2; i++) {
  const account = await storage.accounts.create(`fuzz revoked ${i}`);
  const old = (await storage.keys.create(account.id, 'fuzz', false)).token;
  await storage.keys.resetAccount(account.id);
  out.revoked.push(old);
}
out.plain = await Promise.all(
  made.map(async ({ account, key }, i) => {
    const routes = [];
    for (let j = 0; j < Number(perAccount); j++) {
      const r = await storage.routes.create(storage.accounts.get(account.id), {
        name: `fuzz ${i}.${j}`,
        pageA: `https://a.example.com/${i}/${j}`,
        pageB: `https://b.example.com/${i}/${j}`,
        splitRatio: 0.5,
        defaultGroup: 'a',
        interceptLevel: 'off',
      });
      routes.push({ id: r.id, code: r.code });
    }
    return { id: account.id, key, routes };
  }),
);
await storage.close();
process.stdout.write(`${JSON.stringify(out)}\n`);
