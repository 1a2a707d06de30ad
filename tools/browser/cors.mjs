// A front end on another origin reads the content API with a token, from a real Chromium
// (Debian's, driven by playwright-core): tests/browser.rs runs it.
//
//   node cors.mjs CHROMIUM OPEN_API CLOSED_API AUTHORIZATION
//
// Serves a page on 127.0.0.1 (a port of its own, so another origin than either API),
// then from that page fetches OPEN_API/api/secrets and CLOSED_API/api/secrets with the
// `Authorization` header, and prints one JSON line: each fetch's status and body, or the
// error the browser raised (a CORS refusal is a TypeError, as the page sees it).
import http from 'node:http';
import { chromium } from 'playwright-core';

const [chromiumPath, openApi, closedApi, authorization] = process.argv.slice(2);
const page = '<!doctype html><meta charset="utf-8"><title>front end</title><p>front end</p>';
const server = http.createServer((_, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(page);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
try {
  const tab = await browser.newPage();
  await tab.goto(`${origin}/`);
  const read = (base) =>
    tab.evaluate(
      async ({ base, authorization }) => {
        try {
          const r = await fetch(`${base}/api/secrets`, { headers: { Authorization: authorization } });
          return { status: r.status, body: await r.json() };
        } catch (e) {
          return { error: String(e) };
        }
      },
      { base, authorization },
    );
  const result = { origin, open: await read(openApi), closed: await read(closedApi) };
  console.log(JSON.stringify(result));
} finally {
  await browser.close();
  server.close();
}
