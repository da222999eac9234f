// The market-data client commands: `markets search`, `market`, `book [--watch]`, `candles`, `quote`,
// `consolidated` and `route`, each one SDK call (the live book one WebSocket subscription) printed as a table or JSON.
import type { BookView, OmnibookClient } from '../../../clients/typescript/src/index.js';
import { parse, UsageError } from '../args.js';
import { CLIENT_FLAGS, connect } from './connection.js';
import { type Cell, done, fields, json, table, truncate } from './output.js';

type Out = (text: string) => void;

const positiveNumber = (raw: string | undefined, flag: string): number | undefined => {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag}: '${raw}' is not a positive number`);
  return n;
};

function one(positionals: string[], what: string): string {
  const [value, extra] = positionals;
  if (!value) throw new UsageError(`missing ${what}`);
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  return value;
}

export async function marketsCommand(argv: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(argv, {
    ...CLIENT_FLAGS,
    exchange: { type: 'string' },
    status: { type: 'string' },
    limit: { type: 'string' },
  });
  const [sub, ...words] = positionals;
  if (sub !== 'search' || words.length === 0) throw new UsageError('usage: omnibook markets search TEXT');
  const client = connect(values);
  const limit = positiveNumber(values.limit, '--limit');
  const page = await client.searchMarkets(words.join(' '), {
    ...(values.exchange ? { exchanges: values.exchange } : {}),
    ...(values.status ? { status: values.status as 'active' } : {}),
    ...(limit !== undefined ? { limit } : {}),
  });
  if (values.json) return done(out, json(page));
  out(
    table(
      ['svc_id', 'exchange', 'question', 'bid', 'ask', 'volume'],
      page.markets.map((m) => [
        m.svc_id,
        m.exchange,
        truncate(m.question, 60),
        m.best_bid,
        m.best_ask,
        m.volume_total,
      ]),
    ),
  );
  out(
    `${page.markets.length} of ${page.pagination.total}${page.pagination.total_exact ? '' : '+'} markets\n`,
  );
  return 0;
}

export async function marketCommand(argv: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(argv, CLIENT_FLAGS);
  const market = await connect(values).market(one(positionals, 'SVC_ID'));
  if (values.json) return done(out, json(market));
  out(
    fields([
      ['svc_id', market.svc_id],
      ['exchange', market.exchange],
      ['market_id', market.exchange_market_id],
      ['question', market.question],
      ['status', market.status],
      ['type', market.market_type],
      ['best_bid', market.best_bid],
      ['best_ask', market.best_ask],
      ['last_price', market.last_price],
      ['volume', market.volume_total],
      ['end_date', market.end_date],
      ['tick_size', market.tick_size],
      ['min_order_size', market.min_order_size],
    ]),
  );
  out(
    table(
      ['outcome', 'price', 'token_id'],
      market.outcomes.map((o) => [o.name, o.price, o.token_id]),
    ),
  );
  return 0;
}

/** Bids and asks side by side, best first. */
function bookTable(bids: Array<[number, number]>, asks: Array<[number, number]>): string {
  const rows: Cell[][] = [];
  for (let i = 0; i < Math.max(bids.length, asks.length); i++) {
    rows.push([bids[i]?.[1], bids[i]?.[0], asks[i]?.[0], asks[i]?.[1]]);
  }
  return table(['bid size', 'bid', 'ask', 'ask size'], rows);
}

export async function bookCommand(argv: string[], out: Out, signal: AbortSignal): Promise<number> {
  const { values, positionals } = parse(argv, {
    ...CLIENT_FLAGS,
    outcome: { type: 'string' },
    depth: { type: 'string' },
    watch: { type: 'boolean' },
  });
  const svcId = one(positionals, 'SVC_ID');
  const depth = positiveNumber(values.depth, '--depth');
  const client = connect(values);
  if (values.watch)
    return watchBook(client, { svcId, outcome: values.outcome, depth, json: values.json }, out, signal);
  const book = await client.orderbook({
    svc_id: svcId,
    ...(values.outcome ? { outcome: values.outcome } : {}),
    ...(depth !== undefined ? { limit: depth } : {}),
  });
  if (values.json) return done(out, json(book));
  out(`${book.svc_id} ${book.outcome} (${book.exchange}) at ${book.timestamp}\n`);
  out(bookTable(book.bids, book.asks));
  return 0;
}

/**
 * `book --watch`: one WebSocket subscription, the book redrawn on every change (a terminal is cleared first; a pipe
 * gets one frame after another, or with --json one JSON line per state) until Ctrl-C. An unknown id is refused by
 * the server and ends the command with its code.
 */
async function watchBook(
  client: OmnibookClient,
  opts: { svcId: string; outcome: string | undefined; depth: number | undefined; json: boolean | undefined },
  out: Out,
  signal: AbortSignal,
): Promise<number> {
  const stream = client.stream();
  const clear = process.stdout.isTTY ? '\x1b[H\x1b[2J' : '';
  try {
    const book = await stream.subscribeBook({
      svc_id: opts.svcId,
      ...(opts.outcome ? { outcome: opts.outcome } : {}),
      depth: opts.depth ?? 10,
    });
    const draw = (view: BookView) => {
      if (opts.json) return out(`${JSON.stringify(view)}\n`);
      const title = `${view.svc_id} ${view.outcome} (${view.exchange})  ${view.state}, feed ${view.feed_state}, seq ${view.server_seq}`;
      out(`${clear}${title}\n${bookTable(view.bids, view.asks)}\n`);
    };
    // The first value is the book as it is now; then each change.
    const iterator = book.updates();
    signal.addEventListener('abort', () => void iterator.return?.(), { once: true });
    // The iterator keeps only the newest state, so a slow terminal redraws what is current, never a backlog.
    for await (const view of iterator) draw(view);
    return 0;
  } finally {
    stream.close();
  }
}

export async function candlesCommand(argv: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(argv, {
    ...CLIENT_FLAGS,
    outcome: { type: 'string' },
    interval: { type: 'string' },
    start: { type: 'string' },
    end: { type: 'string' },
  });
  const svcId = one(positionals, 'SVC_ID');
  const start = positiveNumber(values.start, '--start');
  const end = positiveNumber(values.end, '--end');
  const answer = await connect(values).candles({
    svc_id: svcId,
    ...(values.outcome ? { outcome: values.outcome } : {}),
    ...(values.interval ? { interval: values.interval as '1h' } : {}),
    ...(start !== undefined ? { start_ts: start } : {}),
    ...(end !== undefined ? { end_ts: end } : {}),
  });
  if (values.json) return done(out, json(answer));
  out(
    table(
      ['start', 'open', 'high', 'low', 'close', 'volume'],
      answer.candles.map((c) => [c.timestamp, c.open, c.high, c.low, c.close, c.volume]),
    ),
  );
  return 0;
}

function sideFlag(raw: string | undefined): 'buy' | 'sell' {
  if (raw !== 'buy' && raw !== 'sell') throw new UsageError('--side must be buy or sell');
  return raw;
}

export async function quoteCommand(argv: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(argv, {
    ...CLIENT_FLAGS,
    outcome: { type: 'string' },
    side: { type: 'string' },
    amount: { type: 'string' },
  });
  const svcId = one(positionals, 'SVC_ID');
  const amount = positiveNumber(values.amount, '--amount');
  if (amount === undefined) throw new UsageError('--amount is required');
  const q = await connect(values).executionPrice({
    svc_id: svcId,
    side: sideFlag(values.side),
    amount: String(amount),
    ...(values.outcome ? { outcome: values.outcome } : {}),
  });
  if (values.json) return done(out, json(q));
  out(
    fields([
      ['market', `${q.svc_id} ${q.outcome}`],
      ['side', q.side],
      ['amount', q.amount],
      ['filled', q.filled_amount],
      ['fully_filled', q.fully_filled],
      ['avg_price', q.avg_price],
      ['best_price', q.best_price],
      ['worst_price', q.worst_price],
      ['total_cost', q.total_cost],
      ['fee_estimate', q.fee_estimate],
      ['net_cost', q.net_cost],
      ['levels', q.levels_consumed],
    ]),
  );
  return 0;
}

export async function consolidatedCommand(argv: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(argv, {
    ...CLIENT_FLAGS,
    outcome: { type: 'string' },
    limit: { type: 'string' },
    'min-tier': { type: 'string' },
  });
  const svcId = one(positionals, 'SVC_ID');
  const limit = positiveNumber(values.limit, '--limit');
  const book = await connect(values).consolidatedOrderbook({
    svc_id: svcId,
    ...(values.outcome ? { outcome: values.outcome } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(values['min-tier'] ? { min_tier: values['min-tier'] as 'HIGH' } : {}),
  });
  if (values.json) return done(out, json(book));
  const side = (name: string, levels: typeof book.bids): Cell[][] =>
    levels.map(([price, size, exchange, net]) => [name, price, size, exchange, net]);
  out(
    table(
      ['side', 'price', 'size', 'exchange', 'net_price'],
      [...side('bid', book.bids), ...side('ask', book.asks)],
    ),
  );
  out(
    table(
      ['venue', 'svc_id', 'book_state', 'confidence'],
      book.venues.map((v) => [v.exchange, v.svc_id, v.book_state, v.link_confidence]),
    ),
  );
  return 0;
}

export async function routeCommand(argv: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(argv, {
    ...CLIENT_FLAGS,
    outcome: { type: 'string' },
    side: { type: 'string' },
    amount: { type: 'string' },
    exchanges: { type: 'string' },
    'max-legs': { type: 'string' },
  });
  const svcId = one(positionals, 'SVC_ID');
  const amount = positiveNumber(values.amount, '--amount');
  if (amount === undefined) throw new UsageError('--amount is required');
  const maxLegs = positiveNumber(values['max-legs'], '--max-legs');
  const quote = await connect(values).routeQuote({
    svc_id: svcId,
    side: sideFlag(values.side),
    amount: String(amount),
    ...(values.outcome ? { outcome: values.outcome } : {}),
    ...(values.exchanges ? { exchanges: values.exchanges } : {}),
    ...(maxLegs !== undefined ? { max_legs: maxLegs } : {}),
  });
  if (values.json) return done(out, json(quote));
  out(
    table(
      ['exchange', 'market_id', 'outcome', 'side', 'limit', 'size', 'avg_price', 'fee', 'net_cost'],
      quote.legs.map((l) => [
        l.exchange,
        l.market_id,
        l.outcome,
        l.side,
        l.limit_price,
        l.size,
        l.est_avg_price,
        l.est_fee,
        l.est_net_cost,
      ]),
    ),
  );
  out(
    fields([
      ['total size', quote.totals.size],
      ['total net cost', quote.totals.est_net_cost],
      [
        'best single venue',
        quote.best_single ? `${quote.best_single.exchange} ${quote.best_single.est_net_cost}` : null,
      ],
    ]),
  );
  return 0;
}
