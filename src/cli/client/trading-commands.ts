// The trading client commands: `order place|get|list|cancel`, `fills`, `positions`, `balance`. Exchange
// credentials come from --credentials (sent per request, never printed) or the customer's stored ones.
// `order place` always sends an Idempotency-Key (--idempotency-key, or one the SDK makes) and prints it, so a
// command that lost its answer can be repeated without placing the order twice.
import { parse, UsageError } from '../args.js';
import { CLIENT_FLAGS, connect } from './connection.js';
import { done, fields, json, table } from './output.js';

type Out = (text: string) => void;

function numberFlag(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new UsageError(`${flag}: '${raw}' is not a number`);
  return n;
}

function required<T>(value: T | undefined, flag: string): T {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`);
  return value;
}

interface OrderRow {
  id: string;
  market_id: string;
  outcome: string;
  side: string;
  price: number;
  size: number;
  filled: number;
  status: string;
  created_at: string;
}

function orderTable(orders: OrderRow[]): string {
  return table(
    ['id', 'market_id', 'outcome', 'side', 'price', 'size', 'filled', 'status', 'created_at'],
    orders.map((o) => [
      o.id,
      o.market_id,
      o.outcome,
      o.side,
      o.price,
      o.size,
      o.filled,
      o.status,
      o.created_at,
    ]),
  );
}

export async function orderCommand(argv: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(argv, {
    ...CLIENT_FLAGS,
    exchange: { type: 'string' },
    outcome: { type: 'string' },
    side: { type: 'string' },
    price: { type: 'string' },
    size: { type: 'string' },
    type: { type: 'string' },
    expiration: { type: 'string' },
    'idempotency-key': { type: 'string' },
    market: { type: 'string' },
    status: { type: 'string' },
    limit: { type: 'string' },
  });
  const [sub, id, extra] = positionals;
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  const client = connect(values);
  switch (sub) {
    case 'place': {
      // SVC_ID names the market; its exchange and native id come from the catalogue.
      const market = await client.market(required(id, 'SVC_ID'));
      const side = values.side;
      if (side !== 'buy' && side !== 'sell') throw new UsageError('--side must be buy or sell');
      const outcome = values.outcome ?? market.outcomes[0]?.name ?? 'Yes';
      const params: Record<string, string> = {};
      if (values.type) params.order_type = values.type;
      if (values.expiration) params.expiration = values.expiration;
      const idempotencyKey = values['idempotency-key'] ?? crypto.randomUUID();
      const order = await client.placeOrder(
        { exchange: market.exchange },
        {
          market_id: market.exchange_market_id,
          outcome,
          side,
          price: required(numberFlag(values.price, '--price'), '--price'),
          size: required(numberFlag(values.size, '--size'), '--size'),
          ...(Object.keys(params).length > 0 ? { params } : {}),
        },
        { idempotencyKey },
      );
      if (values.json)
        return done(out, json({ ...order, exchange: market.exchange, idempotency_key: idempotencyKey }));
      out(orderTable([order]));
      out(
        `exchange ${market.exchange}; idempotency key ${idempotencyKey} (repeat with --idempotency-key to retry safely)\n`,
      );
      return 0;
    }
    case 'get':
    case 'cancel': {
      const exchange = required(values.exchange, '--exchange');
      const orderId = required(id, 'ORDER_ID');
      const order =
        sub === 'get'
          ? await client.getOrder(orderId, { exchange })
          : await client.cancelOrder(orderId, { exchange });
      if (values.json) return done(out, json(order));
      out(orderTable([order]));
      return 0;
    }
    case 'list': {
      if (id !== undefined) throw new UsageError(`unexpected argument '${id}'`);
      const status = values.status;
      if (status !== undefined && status !== 'open' && status !== 'closed' && status !== 'all') {
        throw new UsageError('--status must be open, closed or all');
      }
      const limit = numberFlag(values.limit, '--limit');
      const orders = await client.listOrders({
        exchange: required(values.exchange, '--exchange'),
        ...(status ? { status } : {}),
        ...(values.market ? { market_id: values.market } : {}),
        ...(limit !== undefined ? { limit } : {}),
      });
      if (values.json) return done(out, json(orders));
      out(orderTable(orders));
      return 0;
    }
    default:
      throw new UsageError('usage: omnibook order place|get|list|cancel …');
  }
}

export async function fillsCommand(argv: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(argv, {
    ...CLIENT_FLAGS,
    exchange: { type: 'string' },
    market: { type: 'string' },
    limit: { type: 'string' },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const limit = numberFlag(values.limit, '--limit');
  const fills = await connect(values).fills({
    exchange: required(values.exchange, '--exchange'),
    ...(values.market ? { market_id: values.market } : {}),
    ...(limit !== undefined ? { limit } : {}),
  });
  if (values.json) return done(out, json(fills));
  out(
    table(
      ['fill_id', 'order_id', 'market_id', 'outcome', 'side', 'price', 'size', 'fee', 'taker', 'created_at'],
      fills.map((f) => [
        f.fill_id,
        f.order_id,
        f.market_id,
        f.outcome,
        f.side,
        f.price,
        f.size,
        f.fee,
        f.is_taker,
        f.created_at,
      ]),
    ),
  );
  return 0;
}

export async function positionsCommand(argv: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(argv, {
    ...CLIENT_FLAGS,
    exchange: { type: 'string' },
    market: { type: 'string' },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const positions = await connect(values).positions({
    exchange: required(values.exchange, '--exchange'),
    ...(values.market ? { market_id: values.market } : {}),
  });
  if (values.json) return done(out, json(positions));
  out(
    table(
      ['market_id', 'outcome', 'size', 'average_price', 'current_price'],
      positions.map((p) => [p.market_id, p.outcome, p.size, p.average_price, p.current_price]),
    ),
  );
  return 0;
}

export async function balanceCommand(argv: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(argv, {
    ...CLIENT_FLAGS,
    exchange: { type: 'string' },
    refresh: { type: 'boolean' },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const balance = await connect(values).balance({
    exchange: required(values.exchange, '--exchange'),
    ...(values.refresh ? { refresh: true } : {}),
  });
  if (values.json) return done(out, json(balance));
  // The exchange's own payload (wire contract §4): shown field by field, nested values as JSON.
  const raw = (balance as { raw?: unknown }).raw;
  const entries =
    typeof raw === 'object' && raw !== null ? Object.entries(raw as Record<string, unknown>) : [['raw', raw]];
  out(
    fields(entries.map(([k, v]) => [String(k), typeof v === 'object' ? JSON.stringify(v) : (v as string)])),
  );
  return 0;
}
