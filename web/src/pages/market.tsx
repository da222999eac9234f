// One market: candles, the live book and its depth, the trade tape, an execution-price calculator, and the same
// question on the other venues.
import type { Result } from '@omnibook/client';
import { useEffect, useState } from 'preact/hooks';
import { ErrorNote, ExchangeBadge, Loading, Section, useAsync } from '../components.js';
import { dateTime, money } from '../format.js';
import { useLiveBook } from '../live-book.js';
import { BookPanel } from '../market/book-panel.js';
import { CandlesChart } from '../market/candles-chart.js';
import { ExecutionCalculator } from '../market/execution-calculator.js';
import { MatchesPanel } from '../market/matches-panel.js';
import { TradeTape } from '../market/trade-tape.js';
import { href } from '../router.js';
import type { Session } from '../session.js';

type Market = Result<'/api/v1/markets'>['markets'][number];
type Interval = '1m' | '1h' | '6h' | '1d' | '1w' | 'max';

export function MarketPage({ session, svcId }: { session: Session; svcId: string }) {
  const { client } = session;
  const loaded = useAsync(
    async (signal) => {
      const page = await client.markets(
        { scope: 'market', svc_id: svcId, include_matches: true, include_related: true },
        { signal },
      );
      const market = page.markets[0];
      if (!market) throw new Error(`no market ${svcId}`);
      const ids = [...(market.matched_markets ?? []), ...(market.related_markets ?? [])]
        .map((l) => l.svc_id)
        .slice(0, 100);
      const linked = new Map<string, Market>();
      if (ids.length > 0) {
        const batch = await client.markets({ scope: 'market_batch', svc_ids: ids.join(',') }, { signal });
        for (const m of batch.markets) linked.set(m.svc_id, m);
      }
      return { market, linked };
    },
    [client, svcId],
  );
  const market = loaded.data?.market ?? null;
  const [outcome, setOutcome] = useState<string | null>(null);
  useEffect(() => setOutcome(market?.outcomes[0]?.name ?? null), [market]);
  const book = useLiveBook(client, market ? svcId : null, outcome);

  if (loaded.error !== null) return <ErrorNote error={loaded.error} />;
  if (!market || !loaded.data) return <Loading what="the market" />;
  return (
    <>
      <header class="market-head">
        <p>
          <ExchangeBadge exchange={market.exchange} /> <span class="muted">{market.svc_id}</span> ·{' '}
          <span>{market.status}</span>
        </p>
        <h1>{market.question}</h1>
        <p class="muted">
          Volume {money(market.volume_total)} · 24h {money(market.volume_24h)} · liquidity{' '}
          {money(market.liquidity)} · ends {dateTime(market.end_date)}
        </p>
        <div class="inline-form">
          <div class="field">
            <label for="market-outcome">Outcome</label>
            <select
              id="market-outcome"
              value={outcome ?? ''}
              onChange={(e) => setOutcome(e.currentTarget.value)}
            >
              {market.outcomes.map((o) => (
                <option key={o.name} value={o.name}>
                  {o.name}
                </option>
              ))}
            </select>
          </div>
          <a class="button secondary" href={href('crossvenue', market.svc_id)}>
            Cross-venue book
          </a>
          <a class="button secondary" href={`${href('account')}?market=${encodeURIComponent(market.svc_id)}`}>
            Trade
          </a>
        </div>
      </header>
      {outcome && (
        <div class="grid">
          <Candles session={session} svcId={svcId} outcome={outcome} />
          <BookPanel book={book} outcome={outcome} />
          <ExecutionCalculator client={client} svcId={svcId} outcome={outcome} />
          <RecentTrades session={session} svcId={svcId} outcome={outcome} live={book.trades} />
          <MatchesPanel
            client={client}
            market={market}
            linked={loaded.data.linked}
            best={{ bid: book.view?.bids[0]?.[0] ?? null, ask: book.view?.asks[0]?.[0] ?? null }}
          />
        </div>
      )}
    </>
  );
}

function Candles({ session, svcId, outcome }: { session: Session; svcId: string; outcome: string }) {
  const [interval, setInterval] = useState<Interval>('1h');
  const candles = useAsync(
    (signal) => session.client.candles({ svc_id: svcId, outcome, interval }, { signal }),
    [session, svcId, outcome, interval],
  );
  return (
    <Section title="Price" id="candles">
      <div class="inline-form">
        <div class="field">
          <label for="candle-interval">Interval</label>
          <select
            id="candle-interval"
            value={interval}
            onChange={(e) => setInterval(e.currentTarget.value as Interval)}
          >
            {['1m', '1h', '6h', '1d', '1w', 'max'].map((i) => (
              <option key={i}>{i}</option>
            ))}
          </select>
        </div>
      </div>
      {candles.error !== null && <ErrorNote error={candles.error} />}
      {candles.data && candles.data.candles.length === 0 && (
        <p class="muted">No candles for this interval.</p>
      )}
      {candles.data && (
        <CandlesChart
          candles={candles.data.candles}
          label={`${outcome} price candles, ${candles.data.interval}, ${candles.data.candles.length} candles`}
        />
      )}
    </Section>
  );
}

function RecentTrades({
  session,
  svcId,
  outcome,
  live,
}: {
  session: Session;
  svcId: string;
  outcome: string;
  live: Parameters<typeof TradeTape>[0]['live'];
}) {
  const recent = useAsync(
    (signal) => session.client.trades({ svc_id: svcId, outcome, limit: 30 }, { signal }),
    [session, svcId, outcome],
  );
  return (
    <>
      {recent.error !== null && <ErrorNote error={recent.error} />}
      <TradeTape live={live} recent={recent.data?.trades ?? []} />
    </>
  );
}
