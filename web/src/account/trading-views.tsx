// One exchange's account as the API reports it: orders (open, with cancel; and history), fills, positions.
import { useState } from 'preact/hooks';
import { AsyncTable, type Column, ErrorNote, Section, useAsync } from '../components.js';
import { dateTime, money, price, size } from '../format.js';
import type { Session } from '../session.js';

const ORDER_COLUMNS: readonly Column[] = [
  { label: 'Order' },
  { label: 'Market' },
  { label: 'Side' },
  { label: 'Price', num: true },
  { label: 'Filled / size', num: true },
  { label: 'Status' },
  { label: 'Placed' },
  { label: 'Actions', hidden: true },
];
const FILL_COLUMNS: readonly Column[] = [
  { label: 'Time' },
  { label: 'Market' },
  { label: 'Side' },
  { label: 'Price', num: true },
  { label: 'Size', num: true },
  { label: 'Fee', num: true },
  { label: 'Role' },
];
const POSITION_COLUMNS: readonly Column[] = [
  { label: 'Market' },
  { label: 'Size', num: true },
  { label: 'Average', num: true },
  { label: 'Now', num: true },
];

export function OrdersView({
  session,
  exchange,
  version,
}: {
  session: Session;
  exchange: string;
  version: number;
}) {
  const [status, setStatus] = useState<'open' | 'all'>('open');
  const [error, setError] = useState<unknown>(null);
  const orders = useAsync(
    (signal) => session.client.listOrders({ exchange, status, limit: 50 }, { signal }),
    [session, exchange, status, version],
  );
  return (
    <Section title={`Orders · ${exchange}`} id="orders" wide>
      <div class="inline-form">
        <div class="field">
          <label for="orders-status">Show</label>
          <select
            id="orders-status"
            value={status}
            onChange={(e) => setStatus(e.currentTarget.value as 'open' | 'all')}
          >
            <option value="open">open orders</option>
            <option value="all">history (all)</option>
          </select>
        </div>
        <button type="button" class="secondary" onClick={orders.reload}>
          Refresh
        </button>
      </div>
      {error !== null && <ErrorNote error={error} />}
      <AsyncTable
        state={orders}
        testId="orders"
        caption={`Orders on ${exchange}`}
        loading="orders"
        empty={`No ${status === 'open' ? 'open ' : ''}orders.`}
        columns={ORDER_COLUMNS}
        row={(o) => (
          <tr key={o.id} data-order-id={o.id}>
            <td class="mono">{o.id.slice(0, 12)}</td>
            <td>
              {o.market_id} · {o.outcome}
            </td>
            <td class={o.side === 'buy' ? 'bid' : 'ask'}>{o.side}</td>
            <td class="num">{price(o.price)}</td>
            <td class="num">
              {size(o.filled)} / {size(o.size)}
            </td>
            <td>{o.status}</td>
            <td>{dateTime(o.created_at)}</td>
            <td>
              {(o.status === 'open' || o.status === 'partially_filled' || o.status === 'pending') && (
                <button
                  type="button"
                  class="secondary"
                  aria-label={`Cancel order ${o.id}`}
                  onClick={async () => {
                    setError(null);
                    try {
                      await session.client.cancelOrder(o.id, { exchange });
                    } catch (e) {
                      setError(e);
                    }
                    orders.reload();
                  }}
                >
                  Cancel
                </button>
              )}
            </td>
          </tr>
        )}
      />
    </Section>
  );
}

export function FillsView({
  session,
  exchange,
  version,
}: {
  session: Session;
  exchange: string;
  version: number;
}) {
  const fills = useAsync(
    (signal) => session.client.fills({ exchange, limit: 50 }, { signal }),
    [session, exchange, version],
  );
  return (
    <Section title={`Fills · ${exchange}`} id="fills">
      <AsyncTable
        state={fills}
        caption={`Fills on ${exchange}`}
        empty="No fills."
        columns={FILL_COLUMNS}
        row={(f) => (
          <tr key={f.fill_id}>
            <td>{dateTime(f.created_at)}</td>
            <td>
              {f.market_id} · {f.outcome}
            </td>
            <td>{f.side}</td>
            <td class="num">{price(f.price)}</td>
            <td class="num">{size(f.size)}</td>
            <td class="num">{money(f.fee)}</td>
            <td>{f.is_taker ? 'taker' : 'maker'}</td>
          </tr>
        )}
      />
    </Section>
  );
}

export function PositionsView({
  session,
  exchange,
  version,
}: {
  session: Session;
  exchange: string;
  version: number;
}) {
  const positions = useAsync(
    (signal) => session.client.positions({ exchange }, { signal }),
    [session, exchange, version],
  );
  return (
    <Section title={`Positions · ${exchange}`} id="positions">
      <AsyncTable
        state={positions}
        caption={`Positions on ${exchange}`}
        empty="No positions."
        columns={POSITION_COLUMNS}
        row={(p) => (
          <tr key={`${p.market_id}|${p.outcome}`}>
            <td>
              {p.market_id} · {p.outcome}
            </td>
            <td class="num">{size(p.size)}</td>
            <td class="num">{price(p.average_price)}</td>
            <td class="num">{price(p.current_price)}</td>
          </tr>
        )}
      />
    </Section>
  );
}

/** The balance document as the exchange reports it (`raw`): its plain fields, nested ones as JSON. */
export function BalanceCard({
  session,
  exchange,
  version,
}: {
  session: Session;
  exchange: string;
  version: number;
}) {
  const balance = useAsync(
    (signal) => session.client.balance({ exchange }, { signal }),
    [session, exchange, version],
  );
  return (
    <div class="card" data-testid={`balance-${exchange}`}>
      <h3>{exchange}</h3>
      {balance.error !== null && <ErrorNote error={balance.error} />}
      {balance.data && (
        <dl class="quote">
          {Object.entries(balance.data.raw)
            .slice(0, 8)
            .map(([k, v]) => (
              <div key={k}>
                <dt>{k}</dt>
                <dd>{typeof v === 'object' ? JSON.stringify(v).slice(0, 80) : String(v)}</dd>
              </div>
            ))}
        </dl>
      )}
    </div>
  );
}
