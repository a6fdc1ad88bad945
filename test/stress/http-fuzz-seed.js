// Seeds a data directory for the HTTP fuzzer (http-fuzz.js) before the
// server starts on it: plain accounts with one key and a few routes each,
// admin accounts, and one account whose key has been replaced (the old key
// is revoked). Prints what it made as one JSON object on stdout. Run as its
// own process (it opens the LMDB store through dist/):
//
//   node test/stress/http-fuzz-seed.js DATA_DIR PLAIN ADMINS ROUTES_PER_ACCOUNT
import { createAccount, createKey, resetAccountKeys } from '../../dist/store/accounts-store.js';
import { openStores } from '../../dist/store/db.js';
import { createRoute } from '../../dist/store/routes-store.js';

const [dataDir, plain, admins, perAccount] = process.argv.slice(2);
if (!dataDir) {
  console.error('usage: http-fuzz-seed.js DATA_DIR PLAIN ADMINS ROUTES_PER_ACCOUNT');
  process.exit(2);
}

const stores = openStores(dataDir);
const out = { plain: [], admins: [], revoked: [] };
// Accounts and keys in one transaction (each function's own transaction
// nests into it), routes as concurrent asynchronous transactions: one commit
// each instead of one per record.
const made = stores.root.transactionSync(() => {
  const accounts = [];
  for (let i = 0; i < Number(plain); i++) {
    const account = createAccount(stores, `fuzz ${i}`);
    accounts.push({ account, key: createKey(stores, account.id, 'fuzz', false).token });
  }
  for (let i = 0; i < Number(admins); i++) {
    const account = createAccount(stores, `fuzz admin ${i}`, undefined, true);
    out.admins.push({ id: account.id, key: createKey(stores, account.id, 'fuzz', true).token, routes: [] });
  }
  for (let i = 0; i < 2; i++) {
    const account = createAccount(stores, `fuzz revoked ${i}`);
    const old = createKey(stores, account.id, 'fuzz', false).token;
    resetAccountKeys(stores, account.id);
    out.revoked.push(old);
  }
  return accounts;
});
out.plain = await Promise.all(
  made.map(async ({ account, key }, i) => {
    const routes = [];
    // One at a time per account (each reads the account's count), all accounts at once.
    for (let j = 0; j < Number(perAccount); j++) {
      const r = await createRoute(stores, stores.accounts.get(account.id), {
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
await stores.root.close();
process.stdout.write(`${JSON.stringify(out)}\n`);
