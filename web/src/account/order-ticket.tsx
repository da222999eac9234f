// The order ticket: a limit order on one exchange (in the sandbox: paper money on its simulator). The quote for that
// size against the live book, fees included, is shown before anything can be sent; changing the order asks for a
// new quote. POST /orders carries an Idempotency-Key (the SDK's), so a retried send never places it twice.
import type { Result } from '@omnibook/client';
import { useEffect, useState } from 'preact/hooks';
import { ErrorNote, Section } from '../components.js';
import { QuoteTable } from '../market/execution-calculator.js';
import type { Session } from '../session.js';

type Market = Result<'/api/v1/markets'>['markets'][number];
type Quote = Result<'/api/v1/execution-price'>;
type Order = Result<'/api/v1/orders', 'post'>;

export function OrderTicket({
  session,
  initialMarket,
  onPlaced,
}: {
  session: Session;
  initialMarket: string | null;
  onPlaced: (exchange: string, order: Order) => void;
}) {
  const { client } = session;
  const [svcId, setSvcId] = useState(initialMarket ?? '');
  const [market, setMarket] = useState<Market | null>(null);
  const [outcome, setOutcome] = useState('');
  const [side, setSide] = useState<'buy' | 'sell'>('buy');
  const [limit, setLimit] = useState('');
  const [shares, setShares] = useState('5');
  const [quote, setQuote] = useState<{ quote: Quote; key: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [placed, setPlaced] = useState<Order | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const id = svcId.trim();
    if (!/^[a-z]+:.+/.test(id)) {
      setMarket(null);
      return;
    }
    const abort = new AbortController();
    client.markets({ scope: 'market', svc_id: id }, { signal: abort.signal, retry: false }).then(
      (page) => {
        const m = page.markets[0] ?? null;
        setMarket(m);
        setOutcome(m?.outcomes[0]?.name ?? '');
      },
      () => !abort.signal.aborted && setMarket(null),
    );
    return () => abort.abort();
  }, [client, svcId]);

  const key = `${svcId}|${outcome}|${side}|${limit}|${shares}`;
  const quoted = quote !== null && quote.key === key;
  const hasCredentials = market ? session.credentials[market.exchange] !== undefined : false;

  return (
    <Section title="Order ticket" id="ticket">
      <form
        class="ticket"
        onSubmit={async (e) => {
          e.preventDefault();
          if (!market) return;
          setError(null);
          setBusy(true);
          try {
            if (!quoted) {
              setPlaced(null);
              const q = await client.executionPrice({ svc_id: market.svc_id, outcome, side, amount: shares });
              setQuote({ quote: q, key });
              if (limit === '' && q.worst_price !== null) setLimit(String(q.worst_price));
            } else {
              const order = await client.placeOrder(
                { exchange: market.exchange },
                {
                  market_id: market.exchange_market_id,
                  outcome,
                  side,
                  price: Number(limit),
                  size: Number(shares),
                },
              );
              setPlaced(order);
              setQuote(null);
              onPlaced(market.exchange, order);
            }
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <div class="field grow">
          <label for="ticket-market">Market (svc_id)</label>
          <input id="ticket-market" value={svcId} onInput={(e) => setSvcId(e.currentTarget.value)} />
        </div>
        <p class="muted" aria-live="polite">
          {market
            ? `${market.exchange}: ${market.question}`
            : 'Enter a market id, e.g. from the market page.'}
        </p>
        <div class="field">
          <label for="ticket-outcome">Outcome</label>
          <select id="ticket-outcome" value={outcome} onChange={(e) => setOutcome(e.currentTarget.value)}>
            {(market?.outcomes ?? []).map((o) => (
              <option key={o.name}>{o.name}</option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="ticket-side">Side</label>
          <select
            id="ticket-side"
            value={side}
            onChange={(e) => setSide(e.currentTarget.value as 'buy' | 'sell')}
          >
            <option value="buy">buy</option>
            <option value="sell">sell</option>
          </select>
        </div>
        <div class="field">
          <label for="ticket-price">Limit price</label>
          <input
            id="ticket-price"
            type="number"
            min="0"
            max="1"
            step="any"
            inputMode="decimal"
            value={limit}
            onInput={(e) => setLimit(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="ticket-size">Shares</label>
          <input
            id="ticket-size"
            type="number"
            min="0"
            step="any"
            inputMode="decimal"
            value={shares}
            onInput={(e) => setShares(e.currentTarget.value)}
          />
        </div>
        {market && !hasCredentials && (
          <p class="warn-note">
            No {market.exchange} credentials in this tab: the order uses the ones stored for your key, if any.
          </p>
        )}
        <div class="actions">
          <button type="submit" disabled={!market || busy || (quoted && limit === '')}>
            {quoted ? `Send ${side} order` : 'Get quote'}
          </button>
        </div>
      </form>
      {quote && quoted && (
        <div aria-live="polite">
          <h3>Quote before sending</h3>
          <QuoteTable quote={quote.quote} />
          <p class="muted">
            A limit order at {limit || '—'} for {shares} shares; it rests on the book for what does not match.
          </p>
        </div>
      )}
      {error !== null && <ErrorNote error={error} />}
      {placed && (
        <p class="ok-note" role="status" data-testid="order-placed">
          Order {placed.id} {placed.status}: {placed.side} {placed.size} {placed.outcome} @ {placed.price}
        </p>
      )}
    </Section>
  );
}
