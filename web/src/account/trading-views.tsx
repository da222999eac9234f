// One exchange's account as the API reports it: orders (open, with cancel; and history), fills, positions.
import { useState } from 'preact/hooks';
import { ErrorNote, Loading, Section, useAsync } from '../components.js';
import { dateTime, money, price, size } from '../format.js';
import type { Session } from '../session.js';

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
      {orders.error !== null && <ErrorNote error={orders.error} />}
      {orders.loading && !orders.data && <Loading what="orders" />}
      {orders.data && orders.data.length === 0 && (
        <p class="muted">No {status === 'open' ? 'open ' : ''}orders.</p>
      )}
      {orders.data && orders.data.length > 0 && (
        <div class="table-wrap">
          <table data-testid="orders">
            <caption class="sr-only">Orders on {exchange}</caption>
            <thead>
              <tr>
                <th scope="col">Order</th>
                <th scope="col">Market</th>
                <th scope="col">Side</th>
                <th scope="col" class="num">
                  Price
                </th>
                <th scope="col" class="num">
                  Filled / size
                </th>
                <th scope="col">Status</th>
                <th scope="col">Placed</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {orders.data.map((o) => (
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
              ))}
            </tbody>
          </table>
        </div>
      )}
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
      {fills.error !== null && <ErrorNote error={fills.error} />}
      {fills.data && fills.data.length === 0 && <p class="muted">No fills.</p>}
      {fills.data && fills.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Fills on {exchange}</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Market</th>
                <th scope="col">Side</th>
                <th scope="col" class="num">
                  Price
                </th>
                <th scope="col" class="num">
                  Size
                </th>
                <th scope="col" class="num">
                  Fee
                </th>
                <th scope="col">Role</th>
              </tr>
            </thead>
            <tbody>
              {fills.data.map((f) => (
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
              ))}
            </tbody>
          </table>
        </div>
      )}
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
      {positions.error !== null && <ErrorNote error={positions.error} />}
      {positions.data && positions.data.length === 0 && <p class="muted">No positions.</p>}
      {positions.data && positions.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Positions on {exchange}</caption>
            <thead>
              <tr>
                <th scope="col">Market</th>
                <th scope="col" class="num">
                  Size
                </th>
                <th scope="col" class="num">
                  Average
                </th>
                <th scope="col" class="num">
                  Now
                </th>
              </tr>
            </thead>
            <tbody>
              {positions.data.map((p) => (
                <tr key={`${p.market_id}|${p.outcome}`}>
                  <td>
                    {p.market_id} · {p.outcome}
                  </td>
                  <td class="num">{size(p.size)}</td>
                  <td class="num">{price(p.average_price)}</td>
                  <td class="num">{price(p.current_price)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
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
