// search → book → quote → order → cancel, against a running server (e.g. `npm run sandbox`):
//   OMNIBOOK_URL=http://127.0.0.1:8080 OMNIBOOK_API_KEY=… OMNIBOOK_CREDENTIALS=data/sandbox-accounts.json \
//     node --import tsx clients/typescript/examples/trade.ts [SEARCH WORDS]
import { readFileSync } from 'node:fs';
import { OmnibookClient, OmnibookError } from '@omnibook/client';

const accounts = JSON.parse(
  readFileSync(process.env.OMNIBOOK_CREDENTIALS ?? 'data/sandbox-accounts.json', 'utf8'),
);
const client = new OmnibookClient({
  baseUrl: process.env.OMNIBOOK_URL ?? 'http://127.0.0.1:8080',
  apiKey: process.env.OMNIBOOK_API_KEY,
  credentials: { kalshi: accounts.kalshi.credentials }, // sent as X-Exchange-Credentials on kalshi calls
});

// 1. Search kalshi's active markets (every word must match); without words, the first page.
const words = process.argv.slice(2).join(' ');
const { markets } = words
  ? await client.searchMarkets(words, { exchanges: 'kalshi', limit: 5 })
  : await client.markets({ exchanges: 'kalshi', limit: 5 });
const market = markets[0];
if (!market) throw new Error('no kalshi market');
console.log(`market  ${market.svc_id}  ${market.question}`);

// 2. Book and 3. quote.
const outcome = market.outcomes[0]?.name ?? 'Yes';
const book = await client.orderbook({ svc_id: market.svc_id, outcome, limit: 3 });
console.log('book    bids', book.bids, 'asks', book.asks);
const quote = await client.executionPrice({ svc_id: market.svc_id, outcome, side: 'buy', amount: '5' });
console.log(`quote   5 @ avg ${quote.avg_price}, net cost ${quote.net_cost}`);

// 4. A resting order at the lowest tick (the client adds an Idempotency-Key, so its retries never place it twice)…
const order = await client.placeOrder(
  { exchange: market.exchange },
  { market_id: market.exchange_market_id, outcome, side: 'buy', price: book.tick_size ?? 0.01, size: 1 },
);
console.log(`order   ${order.id} ${order.status}`);

// 5. …cancelled.
const cancelled = await client.cancelOrder(order.id, { exchange: market.exchange });
console.log(`cancel  ${cancelled.id} ${cancelled.status}`);

// Errors are typed: code, retryable, request id.
try {
  await client.market('kalshi:NO-SUCH-MARKET');
} catch (error) {
  if (error instanceof OmnibookError) console.log(`error   ${error.code} (retryable: ${error.retryable})`);
}
