// Drives a running `brain browse` in headless Chromium (Debian's, through playwright-core) the way a
// person would: opens the printed URL, every page, searches with the form and follows a hit to its
// turn, opens hostile documents, and takes a screenshot of each page. Prints one JSON object of what
// it saw; tests/tests/browse.rs asserts on it.
//
//   node browse.mjs '{"url": "http://127.0.0.1:PORT/?t=…", "shots": "DIR", "pages": {...}, "query": "…"}'
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';

const input = JSON.parse(process.argv[2]);
mkdirSync(input.shots, { recursive: true });
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: [
    '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
  ],
});
const out = { pages: {}, dialogs: [], pwned: {}, console: [], shots: [], blocked: [] };
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  const page = await context.newPage();
  page.on('dialog', async (d) => { out.dialogs.push(d.message()); await d.dismiss(); });
  page.on('console', (m) => { if (m.type() === 'error') out.console.push(m.text()); });
  // Any request to somewhere else than the server is a leak.
  const base = new URL(input.url).origin;
  await page.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith(base)) return route.continue();
    out.blocked.push(u);
    return route.abort();
  });
  const shot = async (name) => {
    const file = `${input.shots}/${name}.png`;
    await page.screenshot({ path: file, fullPage: false });
    out.shots.push(file);
  };
  const pwned = async (name) => {
    out.pwned[name] = await page.evaluate(() => window.__pwned === undefined ? null : String(window.__pwned));
  };

  // The printed URL: the token becomes a cookie, the address a clean one.
  const first = await page.goto(input.url);
  out.landed = page.url();
  out.pages['/'] = first.status();
  out.overview = await page.evaluate(() => ({
    total: document.querySelector('#total-docs')?.textContent ?? null,
    collections: Object.fromEntries([...document.querySelectorAll('#collections tr[data-collection]')]
      .map((r) => [r.dataset.collection, Number(r.dataset.docs)])),
    kinds: [...document.querySelectorAll('#kinds li')].map((l) => l.textContent.trim()),
  }));
  await shot('overview');

  for (const [name, path] of Object.entries(input.pages)) {
    const r = await page.goto(base + path);
    out.pages[path] = r.status();
    await pwned(name);
    await shot(name);
  }

  // Search with the form, follow the first hit that opens a session turn.
  await page.goto(base + '/search');
  await page.fill('form.search input[name="q"]', input.query);
  await Promise.all([page.waitForNavigation(), page.click('form.search button[type="submit"]')]);
  out.search = await page.evaluate(() => ({
    url: location.pathname + location.search,
    hits: [...document.querySelectorAll('#hits li.hit')].map((li) => ({
      title: li.querySelector('.hit-title')?.textContent,
      href: li.querySelector('.hit-title')?.getAttribute('href'),
    })),
    ran: document.querySelector('#ran')?.textContent ?? null,
  }));
  await shot('search');
  const sessionHit = out.search.hits.find((h) => h.href && h.href.startsWith('/session/'));
  if (sessionHit) {
    await Promise.all([page.waitForNavigation(), page.click(`#hits a.hit-title[href="${sessionHit.href}"]`)]);
    out.followed = await page.evaluate(() => {
      const turn = document.querySelector('.turn.hit, .part.hit');
      const r = turn?.getBoundingClientRect();
      return {
        url: location.pathname + location.search,
        hash: location.hash,
        turn: turn?.id ?? null,
        text: turn?.textContent ?? null,
        visible: !!r && r.top < window.innerHeight && r.bottom > 0,
      };
    });
    await shot('search-hit-turn');
  }

  // The explain breakdown opens on demand.
  await page.goto(base + out.search.url);
  const details = page.locator('#hits details.explain').first();
  if (await details.count()) {
    await details.locator('summary').click();
    out.explain_rows = await details.locator('tr').count();
  }

  // A javascript: link in a document does nothing when clicked.
  if (input.hostile) {
    await page.goto(base + input.hostile);
    const links = page.locator('#body a');
    for (let i = 0; i < await links.count(); i++) {
      const href = await links.nth(i).getAttribute('href');
      if (href === '#') await links.nth(i).click();
    }
    await pwned('after-clicks');
    out.hostile_text = await page.evaluate(() => document.querySelector('#body')?.textContent ?? '');
  }

  // Phone width, and the dark scheme.
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark', isMobile: true });
  const p2 = await phone.newPage();
  await p2.goto(input.url);
  out.phone = await p2.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    width: window.innerWidth,
    bg: getComputedStyle(document.body).backgroundColor,
  }));
  await p2.screenshot({ path: `${input.shots}/phone-dark-overview.png` });
  out.shots.push(`${input.shots}/phone-dark-overview.png`);
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
