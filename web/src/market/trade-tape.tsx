// The trade tape: the stream's trades first (newest on top), then the recent ones GET /trades had.
import type { Activity, Result } from '@omnibook/client';
import { Section } from '../components.js';
import { price, size, time } from '../format.js';

type Trade = Result<'/api/v1/trades'>['trades'][number];

export function TradeTape({ live, recent }: { live: Activity[]; recent: Trade[] }) {
  const rows = [
    ...live.map((t, i) => ({
      key: `live-${t.trade_id ?? i}`,
      at: t.exchange_ts_ms ?? Date.now(),
      side: t.aggressor_side ?? t.side,
      price: t.price,
      size: t.size,
    })),
    ...recent.map((t) => ({
      key: t.id,
      at: t.timestamp,
      side: t.aggressor_side ?? t.side,
      price: t.price,
      size: t.size,
    })),
  ].slice(0, 40);
  return (
    <Section title="Trades" id="trades">
      {rows.length === 0 ? (
        <p class="muted">No trades yet.</p>
      ) : (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard to scroll
        <section class="table-wrap tape" tabIndex={0} aria-label="Trade tape">
          <table>
            <caption class="sr-only">Recent trades, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Side</th>
                <th scope="col" class="num">
                  Price
                </th>
                <th scope="col" class="num">
                  Size
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.key}>
                  <td>{time(r.at)}</td>
                  <td class={r.side === 'buy' ? 'bid' : 'ask'}>{r.side}</td>
                  <td class="num">{price(r.price)}</td>
                  <td class="num">{size(r.size)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </Section>
  );
}
