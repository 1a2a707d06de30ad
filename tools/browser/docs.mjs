// The API explorer at /docs in a real Chromium (Debian's, driven by playwright-core):
// tests/browser.rs runs it.
//
//   node docs.mjs CHROMIUM API AUTHORIZATION [SCREENSHOT]
//
// Opens API/docs, lists the sections (tags) the page shows, authorizes with the bearer
// token, opens GET /api/secrets (which the public role may not read), tries it out, and
// prints one JSON line: the tags, and the status and Authorization of the request the
// page sent.
import { chromium } from 'playwright-core';

const [chromiumPath, api, authorization, screenshot] = process.argv.slice(2);
const token = authorization.replace(/^Bearer\s+/i, '');
const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
try {
  const tab = await browser.newPage();
  const external = [];
  tab.on('request', (r) => {
    if (!r.url().startsWith(api)) external.push(r.url());
  });
  await tab.goto(`${api}/docs`);
  await tab.waitForSelector('.opblock-tag', { timeout: 20000 });
  const tags = await tab.$$eval('.opblock-tag', (els) => els.map((e) => e.getAttribute('data-tag')));

  await tab.click('.auth-wrapper button.authorize');
  await tab.fill('.modal-ux input', token);
  await tab.click('.modal-ux .auth-btn-wrapper button.authorize');
  await tab.click('.modal-ux button.btn-done');

  const block = tab.locator('.opblock.opblock-get', {
    has: tab.locator('.opblock-summary-path[data-path="/api/secrets"]'),
  });
  await block.locator('.opblock-summary').first().click();
  await block.locator('.try-out__btn').waitFor({ timeout: 20000 });
  await block.locator('.try-out__btn').click();
  const answered = tab.waitForResponse((r) => r.url().startsWith(`${api}/api/secrets`), { timeout: 20000 });
  await block.locator('.execute').click();
  const response = await answered;
  const sent = response.request().headers()['authorization'] ?? null;
  await block.locator('.responses-table.live-responses-table').waitFor({ timeout: 20000 });
  if (screenshot) await tab.screenshot({ path: screenshot, fullPage: false });
  console.log(JSON.stringify({ tags, status: response.status(), authorization: sent, external }));
} finally {
  await browser.close();
}
