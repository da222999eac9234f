// The web console in a real browser: Debian's Chromium driven by playwright-core against the whole sandbox (the
// real server over the five simulators and the local chain, links published by a real sync pass). One browser and
// one server; the pages in the order a trader walks them: sign in, search as you type, open a market (candles, the
// live book changing when its simulator moves it, stale → live across a venue stream drop, the execution-price
// calculator, a twin's price on another venue changing when that venue moves), place a paper order after its quote,
// see it among the open orders and cancel it, the cross-venue book and the arbitrage scan, and a phone width.
// Every page is checked with axe-core (no serious or critical violation) and screenshotted under test-results/;
// no Content-Security-Policy violation and no script error may happen anywhere. The keystroke-to-results times
// (performance measures the page records) and the script's compressed size are written to
// test-results/console-figures.json and reported, never asserted on as time.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { DEFAULT_SIZE } from '../../sim/shared/world.js';
import type { ExchangeId } from '../../src/domain/exchanges.js';
import type { Market } from '../../src/domain/market.js';
import { CONSOLE_CSP, CONSOLE_DIST } from '../../src/http/plugins/console.js';
import { LinksRepo } from '../../src/store/links-repo.js';
import { type SandboxServer, startSandboxServer } from '../support/sandbox.js';
import { waitFor } from '../support/server.js';

const CHROMIUM = '/usr/bin/chromium';
const RESULTS = fileURLToPath(new URL('../../test-results/console/', import.meta.url));
const DOCS_SCREENSHOT = fileURLToPath(new URL('../../docs/images/console-market.png', import.meta.url));
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

function skipReason(): string | false {
  if (existsSync(CHROMIUM)) return false;
  const how = 'install it with scripts/ci-system-packages.sh (apt-get install chromium)';
  if (process.env.CI && process.env.CI !== 'false') {
    throw new Error(`Chromium is required by the console test in CI and is missing: ${how}`);
  }
  return `Chromium is not installed at ${CHROMIUM}: ${how} to run this test`;
}
const skip = skipReason();

let sandbox: SandboxServer;
let browser: Browser;
let page: Page;
const problems: string[] = [];
const figures: Record<string, unknown> = {};

/** A kalshi market with a HIGH polymarket twin asked the same way round, both active with token ids. */
let kalshiMarket: Market;
let twin: Market;

before(async () => {
  if (skip) return;
  // The sandbox's own catalogue size (what `npm run sandbox` lists), so the search figures are the sandbox's.
  sandbox = await startSandboxServer(DEFAULT_SIZE, { config: { catalogue: { sync: false } } });
  await sandbox.server.runtime.catalogSync.runAll();
  const links = new LinksRepo(sandbox.server.runtime.store.db);
  const sorted = [...sandbox.markets.values()].sort((a, b) => (a.svc_id < b.svc_id ? -1 : 1));
  for (const m of sorted) {
    if (m.exchange !== 'kalshi' || m.status !== 'active' || m.outcomes.length !== 2) continue;
    const link = (await links.twins(m.svc_id)).find(
      (l) =>
        l.exchange === 'polymarket' && l.status === 'active' && l.confidence_tier === 'HIGH' && !l.inverted,
    );
    const other = link && sandbox.markets.get(link.svc_id);
    if (other?.outcomes.every((o) => o.token_id)) {
      kalshiMarket = m;
      twin = other;
      break;
    }
  }
  assert.ok(kalshiMarket, 'the sandbox world lists a proposition on kalshi and polymarket');

  mkdirSync(RESULTS, { recursive: true });
  // playwright-core gives the browser a fresh empty profile of its own (it refuses --user-data-dir here).
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  page = await context.newPage();
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // A failed request is recorded with its URL below; the console's copy of it names none.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      problems.push(`console error: ${message.text()}`);
    }
  });
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()} ${response.url()}`);
  });
  // A CSP violation is an event in the page: log it as an error, which the listener above records.
  await page.addInitScript(`document.addEventListener('securitypolicyviolation', (e) =>
    console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI))`);
});

after(async () => {
  // Where the walk ended (the last page, for a failure's review) and anything the page reported.
  await page?.screenshot({ path: join(RESULTS, 'last.png'), fullPage: true }).catch(() => {});
  if (problems.length > 0) console.log(`console problems:\n${problems.join('\n')}`);
  await browser?.close();
  await sandbox?.stop();
  if (Object.keys(figures).length > 0) {
    writeFileSync(join(RESULTS, 'console-figures.json'), `${JSON.stringify(figures, null, 2)}\n`);
    console.log(`console figures: ${JSON.stringify(figures)}`);
  }
});

async function simControl(exchange: ExchangeId, path: string, body?: unknown): Promise<void> {
  const sim = sandbox.sims.get(exchange);
  assert.ok(sim);
  const res = await fetch(`${sim.control}/__sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body ?? {}),
  });
  assert.ok(res.ok, `POST /__sim/${path}: ${res.status} ${await res.text()}`);
}

/** axe-core in the page: no serious or critical violation; and a screenshot of the page for review. */
async function checkPage(name: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    interface AxeViolation {
      id: string;
      impact: string | null;
      help: string;
      nodes: Array<{ target: unknown[] }>;
    }
    const result = await axe.run();
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  await page.screenshot({ path: join(RESULTS, `${name}.png`), fullPage: true });
  assert.deepEqual(violations, [], `${name}: accessibility violations`);
}

/** At a phone's width the page is one column and nothing is wider than the screen (tables scroll in their box). */
async function phoneWidth(name: string): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = (await page.evaluate(
    'document.documentElement.scrollWidth - window.innerWidth',
  )) as number;
  await page.screenshot({ path: join(RESULTS, `${name}.png`), fullPage: true });
  await page.setViewportSize({ width: 1366, height: 900 });
  assert.ok(overflow <= 0, `${name}: the page is ${overflow}px wider than a phone`);
}

/** Advances a simulator until `read` gives something other than `before` (bounded: the world may not move the top). */
async function moveUntilChanged(
  exchange: ExchangeId,
  read: () => Promise<string>,
  what: string,
): Promise<string> {
  const start = await read();
  for (let i = 0; i < 10; i++) {
    await simControl(exchange, 'advance', { steps: 3 });
    const changed = await waitFor(
      async () => {
        const now = await read();
        return now !== start ? now : undefined;
      },
      3_000,
      what,
    ).catch(() => undefined);
    if (changed !== undefined) return changed;
  }
  assert.fail(`${what}: still ${start} after 30 simulator steps`);
}

test('the console: sign in, search, a market live, a paper order, cross-venue, a phone', {
  skip,
}, async () => {
  // Served by the server itself: hashed assets cached for a year, the page revalidated, a CSP of this origin only.
  const index = await fetch(`${sandbox.server.url}/console/`);
  assert.equal(index.status, 200);
  assert.match(index.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal(index.headers.get('cache-control'), 'no-cache');
  assert.equal(index.headers.get('content-security-policy'), CONSOLE_CSP);
  const html = await index.text();
  const script = html.match(/src="(assets\/console-[0-9a-f]+\.js)"/)?.[1];
  assert.ok(script, 'index.html names its hashed script');
  const asset = await fetch(`${sandbox.server.url}/console/${script}`);
  assert.match(asset.headers.get('content-type') ?? '', /javascript/);
  assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  const report = JSON.parse(readFileSync(join(CONSOLE_DIST, 'build-report.json'), 'utf8')) as {
    script: { bytes: number; gzip_bytes: number };
  };
  figures.script_gzip_bytes = report.script.gzip_bytes;
  figures.script_bytes = report.script.bytes;
  assert.ok(report.script.gzip_bytes < 300 * 1024, `first-load script ${report.script.gzip_bytes} B gzip`);
  const openapi = (await (await fetch(`${sandbox.server.url}/openapi.json`)).json()) as { paths: object };
  assert.ok(
    !Object.keys(openapi.paths).some((p) => p.startsWith('/console')),
    'no /console in the API document',
  );

  // Sign in.
  await page.goto(`${sandbox.server.url}/console`);
  await page.getByLabel('API key').waitFor();
  await checkPage('1-sign-in');
  await page.getByLabel('API key').fill('not-a-key');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').waitFor();
  // The refused key's 401 is the one resource error this walk expects.
  problems.length = 0;
  // By keyboard: the key field, then Enter.
  await page.getByLabel('API key').fill(sandbox.server.adminKey);
  await page.getByLabel('API key').press('Enter');
  await page.getByRole('navigation', { name: 'Pages' }).waitFor();
  const stored = await page.evaluate(`({
    session: sessionStorage.getItem('omnibook.apiKey'),
    local: localStorage.length,
    cookies: document.cookie,
  })`);
  assert.deepEqual(stored, { session: sandbox.server.adminKey, local: 0, cookies: '' });

  // Search as you type over the whole catalogue, then narrowed to one exchange.
  // Words both twins' questions use, so the results hold both venues' listings: venues phrase one question
  // differently, and the first words of Kalshi's phrasing alone may match only Kalshi's markets.
  const wordsOf = (q: string) => q.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 3);
  const twinWords = new Set(wordsOf(twin.question).map((w) => w.toLowerCase()));
  const words = wordsOf(kalshiMarket.question)
    .filter((w) => twinWords.has(w.toLowerCase()))
    .slice(0, 3)
    .join(' ');
  assert.ok(words, `the twins share words: ${kalshiMarket.question} / ${twin.question}`);
  const box = page.getByLabel('Keywords');
  await box.fill('');
  await page.evaluate(() => performance.clearMeasures('search'));
  await box.pressSequentially(words, { delay: 40 });
  const result = page.getByRole('link', { name: kalshiMarket.question, exact: true });
  await result.waitFor();
  const measures = await page.evaluate(() =>
    performance.getEntriesByName('search', 'measure').map((m) => Math.round(m.duration * 10) / 10),
  );
  assert.ok(measures.length > 0, 'the page measured keystroke → results');
  const sorted = [...measures].sort((a, b) => a - b);
  figures.catalogue_markets = sandbox.markets.size;
  figures.search_query = words;
  figures.search_ms = {
    count: sorted.length,
    median: sorted[Math.floor(sorted.length / 2)],
    p90: sorted[Math.floor(sorted.length * 0.9)],
    max: sorted.at(-1),
    all: measures,
  };
  const badges = page.locator('table.results tbody .badge');
  assert.ok(new Set(await badges.allTextContents()).size > 1, 'the question is listed on several venues');
  await page.getByRole('checkbox', { name: 'kalshi' }).check();
  await waitFor(
    async () => {
      const shown = await badges.allTextContents();
      return shown.length > 0 && shown.every((e) => e === 'kalshi');
    },
    10_000,
    'only kalshi markets after the filter',
  );
  await checkPage('2-search');

  // The market page (opened by keyboard): candles, the live book, the twin on polymarket.
  await result.focus();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: kalshiMarket.question, level: 1 }).waitFor();
  const state = page.getByTestId('book-state');
  await waitFor(async () => (await state.textContent()) === 'live', 15_000, 'the book to be live');
  await page.locator('.chart canvas').first().waitFor();
  const ladder = page.getByTestId('book-ladder');
  await moveUntilChanged('kalshi', async () => (await ladder.textContent()) ?? '', 'the kalshi book to move');

  // A venue stream drop: the page shows the book stale or resyncing, then live again.
  await page.evaluate(`{
    const seen = (globalThis.bookStates = []);
    const el = document.querySelector('[data-testid="book-state"]');
    new MutationObserver(() => seen.push(el.textContent)).observe(el, {
      childList: true,
      characterData: true,
      subtree: true,
    });
  }`);
  await simControl('kalshi', 'ws/drop');
  await waitFor(
    async () => {
      const seen = await page.evaluate(() => (globalThis as unknown as { bookStates: string[] }).bookStates);
      return seen.some((s) => /stale|resyncing|connecting/.test(s)) && seen.at(-1) === 'live';
    },
    20_000,
    'the book to go stale and come back live',
  );

  const twinRow = page.locator(`tr[data-svc-id="${twin.svc_id}"]`);
  await twinRow.waitFor();
  assert.match((await twinRow.textContent()) ?? '', /HIGH/);
  const twinPrice = async () =>
    `${await twinRow.getByTestId('twin-bid').textContent()}/${await twinRow.getByTestId('twin-ask').textContent()}`;
  await waitFor(
    async () => (await twinRow.getByTestId('twin-book').textContent()) === 'live',
    15_000,
    'the twin live',
  );
  await moveUntilChanged('polymarket', twinPrice, "the polymarket twin's price to move");

  await page.getByLabel('Shares').fill('10');
  await page.getByRole('button', { name: 'Calculate' }).click();
  await page.getByTestId('quote').waitFor();
  assert.match((await page.getByTestId('quote').textContent()) ?? '', /Net cost/);
  await checkPage('3-market');
  await page.screenshot({ path: join(RESULTS, '3-market-viewport.png') });
  if (process.env.CONSOLE_DOCS_SCREENSHOT === '1') await page.screenshot({ path: DOCS_SCREENSHOT });

  await phoneWidth('4-market-phone');

  // A paper order on the kalshi simulator: credentials for this tab, the quote first, then the order; cancel it.
  await page.getByRole('link', { name: 'Trade' }).click();
  await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
  const sim = sandbox.sims.get('kalshi');
  assert.ok(sim);
  await page.getByLabel('Credentials JSON').fill(JSON.stringify({ kalshi: sim.account }));
  await page.getByRole('button', { name: 'Use these credentials' }).click();
  await waitFor(
    async () => /kalshi/.test((await page.getByTestId('credentials-held').textContent()) ?? ''),
    5_000,
    'the credentials to be held',
  );
  await page.getByTestId('balance-kalshi').locator('dl').waitFor();
  assert.equal(await page.getByLabel('Market (svc_id)').inputValue(), kalshiMarket.svc_id);
  await page.getByLabel('Limit price').fill('0.02');
  await page.getByLabel('Shares', { exact: true }).fill('3');
  await page.getByRole('button', { name: 'Get quote' }).click();
  await page.getByRole('heading', { name: 'Quote before sending' }).waitFor();
  await page.getByRole('button', { name: 'Send buy order' }).click();
  const placed = page.getByTestId('order-placed');
  await placed.waitFor();
  const orderId = (await placed.textContent())?.match(/^Order (\S+)/)?.[1];
  assert.ok(orderId, 'the placed order is shown with its id');
  const row = page.locator(`tr[data-order-id="${orderId}"]`);
  await row.waitFor();
  await checkPage('5-account');
  await row.getByRole('button', { name: `Cancel order ${orderId}` }).click();
  await row.waitFor({ state: 'detached' });
  const kalshiCreds = Buffer.from(JSON.stringify(sim.account.credentials)).toString('base64');
  const after = await sandbox.server.request(
    `/api/v1/orders/${encodeURIComponent(orderId)}?exchange=kalshi`,
    {
      headers: { 'x-exchange-credentials': kalshiCreds },
    },
  );
  assert.equal(after.status, 200, after.text);
  assert.equal((after.body as { status: string }).status, 'cancelled');

  // Cross-venue: the consolidated book over the twins, and the arbitrage scan.
  await page.goto(`${sandbox.server.url}/console/#/crossvenue/${encodeURIComponent(kalshiMarket.svc_id)}`);
  const venues = page.getByTestId('cv-venues');
  await venues.waitFor();
  const venueText = (await venues.textContent()) ?? '';
  assert.match(venueText, /kalshi/);
  assert.match(venueText, /polymarket/);
  await page.getByTestId('arb-scan').waitFor();
  await checkPage('6-crossvenue');
  await phoneWidth('7-crossvenue-phone');
  await page.goto(`${sandbox.server.url}/console/#/account`);
  await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
  await phoneWidth('8-account-phone');
  await page.goto(`${sandbox.server.url}/console/#/search`);
  await page.locator('table.results tbody tr').first().waitFor();
  await phoneWidth('9-search-phone');

  assert.deepEqual(problems, [], 'no script error and no CSP violation');
});
