// Search: as-you-type over GET /markets with its filters. Every keystroke sends a query (the one before it is
// aborted), and the time from the keystroke to its results on screen is recorded as a `search` performance measure.
import type { Result } from '@omnibook/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorNote, ExchangeBadge } from '../components.js';
import { money, price } from '../format.js';
import { href } from '../router.js';
import { EXCHANGES, type Session } from '../session.js';

type MarketList = Result<'/api/v1/markets'>;
type Status = 'active' | 'closed' | 'resolved' | 'archived';

export function SearchPage({ session }: { session: Session }) {
  const [text, setText] = useState(() => sessionStorage.getItem('omnibook.search') ?? '');
  const [exchanges, setExchanges] = useState<string[]>([]);
  const [status, setStatus] = useState<Status>('active');
  const [minVolume, setMinVolume] = useState('');
  const [minLiquidity, setMinLiquidity] = useState('');
  const [result, setResult] = useState<{ list: MarketList; seq: number } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const seq = useRef(0);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => input.current?.focus(), []);

  useEffect(() => {
    const mine = ++seq.current;
    performance.mark(`search-input-${mine}`);
    sessionStorage.setItem('omnibook.search', text);
    const abort = new AbortController();
    const query = {
      limit: 50,
      status,
      ...(text.trim() ? { search: text.trim() } : {}),
      ...(exchanges.length ? { exchanges: exchanges.join(',') } : {}),
      ...(Number(minVolume) > 0 ? { min_volume: Number(minVolume) } : {}),
      ...(Number(minLiquidity) > 0 ? { min_liquidity: Number(minLiquidity) } : {}),
    };
    session.client.markets(query, { signal: abort.signal, retry: false }).then(
      (list) => {
        if (abort.signal.aborted) return;
        setError(null);
        setResult({ list, seq: mine });
      },
      (e: unknown) => !abort.signal.aborted && setError(e),
    );
    return () => abort.abort();
  }, [session, text, exchanges, status, minVolume, minLiquidity]);

  // After the results of keystroke N are on screen: the measure the browser test reads.
  useEffect(() => {
    if (!result) return;
    const end = `search-rendered-${result.seq}`;
    performance.mark(end);
    performance.measure('search', { start: `search-input-${result.seq}`, end, detail: { q: text } });
  }, [result]);

  const markets = result?.list.markets ?? [];
  return (
    <>
      <h1>Search markets</h1>
      <search>
        <form class="panel filters" onSubmit={(e) => e.preventDefault()}>
          <div class="field grow">
            <label for="search-text">Keywords</label>
            <input
              ref={input}
              id="search-text"
              type="search"
              placeholder="e.g. fed rates"
              value={text}
              onInput={(e) => setText(e.currentTarget.value)}
            />
          </div>
          <div class="field">
            <label for="search-status">Status</label>
            <select
              id="search-status"
              value={status}
              onChange={(e) => setStatus(e.currentTarget.value as Status)}
            >
              {['active', 'closed', 'resolved', 'archived'].map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="search-volume">Min volume (USDC)</label>
            <input
              id="search-volume"
              type="number"
              min="0"
              inputMode="decimal"
              value={minVolume}
              onInput={(e) => setMinVolume(e.currentTarget.value)}
            />
          </div>
          <div class="field">
            <label for="search-liquidity">Min liquidity (USDC)</label>
            <input
              id="search-liquidity"
              type="number"
              min="0"
              inputMode="decimal"
              value={minLiquidity}
              onInput={(e) => setMinLiquidity(e.currentTarget.value)}
            />
          </div>
          <fieldset class="field">
            <legend>Exchanges</legend>
            {EXCHANGES.map((ex) => (
              <label key={ex} class="check">
                <input
                  type="checkbox"
                  checked={exchanges.includes(ex)}
                  onChange={(e) =>
                    setExchanges((list) =>
                      e.currentTarget.checked ? [...list, ex] : list.filter((x) => x !== ex),
                    )
                  }
                />
                {ex}
              </label>
            ))}
          </fieldset>
        </form>
      </search>
      {error !== null && <ErrorNote error={error} />}
      <p class="muted" aria-live="polite" id="search-count">
        {result
          ? `${result.list.pagination.total}${result.list.pagination.total_exact ? '' : '+'} markets` +
            (markets.length < result.list.pagination.total ? `, showing ${markets.length}` : '')
          : 'Searching…'}
      </p>
      <div class="table-wrap">
        <table class="results" aria-describedby="search-count">
          <caption class="sr-only">Markets matching the search</caption>
          <thead>
            <tr>
              <th scope="col">Exchange</th>
              <th scope="col">Market</th>
              <th scope="col" class="num">
                Price
              </th>
              <th scope="col" class="num narrow-hide">
                Bid / ask
              </th>
              <th scope="col" class="num narrow-hide">
                24h volume
              </th>
              <th scope="col" class="num">
                Volume
              </th>
            </tr>
          </thead>
          <tbody>
            {markets.map((m) => (
              <tr key={m.svc_id}>
                <td>
                  <ExchangeBadge exchange={m.exchange} />
                </td>
                <td>
                  <a href={href('market', m.svc_id)}>{m.question}</a>
                  {m.outcomes.length > 2 && <span class="muted"> · {m.outcomes.length} outcomes</span>}
                </td>
                <td class="num">{price(m.outcomes[0]?.price ?? m.last_price)}</td>
                <td class="num narrow-hide">
                  {price(m.best_bid)} / {price(m.best_ask)}
                </td>
                <td class="num narrow-hide">{money(m.volume_24h)}</td>
                <td class="num">{money(m.volume_total)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
