// What a market order of a given amount would cost against the book now, fees included (GET /execution-price).
import type { OmnibookClient, Result } from '@omnibook/client';
import { useState } from 'preact/hooks';
import { ErrorNote, Section } from '../components.js';
import { money, price, size } from '../format.js';

type Quote = Result<'/api/v1/execution-price'>;

export function QuoteTable({ quote }: { quote: Quote }) {
  const rows: Array<[string, string]> = [
    ['Best price', price(quote.best_price)],
    ['Average price', price(quote.avg_price)],
    ['Worst price', price(quote.worst_price)],
    [
      'Filled',
      `${size(quote.filled_amount)} of ${size(quote.amount)}${quote.fully_filled ? '' : ' (book too thin)'}`,
    ],
    ['Levels consumed', String(quote.levels_consumed)],
    ['Cost before fees', money(quote.total_cost)],
    [
      `Fee (${quote.fee_info.fee_type}${quote.fee_info.is_estimate ? ', estimate' : ''})`,
      money(quote.fee_estimate),
    ],
    ['Net cost', money(quote.net_cost)],
    ['Slippage', price(quote.slippage)],
  ];
  return (
    <dl class="quote" data-testid="quote">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

export function ExecutionCalculator({
  client,
  svcId,
  outcome,
}: {
  client: OmnibookClient;
  svcId: string;
  outcome: string;
}) {
  const [side, setSide] = useState<'buy' | 'sell'>('buy');
  const [amount, setAmount] = useState('10');
  const [quote, setQuote] = useState<Quote | null>(null);
  const [error, setError] = useState<unknown>(null);
  return (
    <Section title="Execution price" id="calculator">
      <form
        class="inline-form"
        onSubmit={async (e) => {
          e.preventDefault();
          setError(null);
          try {
            setQuote(await client.executionPrice({ svc_id: svcId, outcome, side, amount }));
          } catch (err) {
            setQuote(null);
            setError(err);
          }
        }}
      >
        <div class="field">
          <label for="calc-side">Side</label>
          <select
            id="calc-side"
            value={side}
            onChange={(e) => setSide(e.currentTarget.value as 'buy' | 'sell')}
          >
            <option value="buy">buy</option>
            <option value="sell">sell</option>
          </select>
        </div>
        <div class="field">
          <label for="calc-amount">Shares</label>
          <input
            id="calc-amount"
            type="number"
            min="0"
            step="any"
            inputMode="decimal"
            value={amount}
            onInput={(e) => setAmount(e.currentTarget.value)}
          />
        </div>
        <button type="submit">Calculate</button>
      </form>
      {error !== null && <ErrorNote error={error} />}
      {quote && <QuoteTable quote={quote} />}
    </Section>
  );
}
