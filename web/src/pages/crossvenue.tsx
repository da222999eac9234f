// Cross-venue: one question's books merged across the venues that list it (GET /orderbook/consolidated, each level
// with its exchange and its price after that exchange's taker fee), and the arbitrage scan (GET /arbitrage).
import type { Result } from '@omnibook/client';
import { useState } from 'preact/hooks';
import { ErrorNote, ExchangeBadge, Loading, Section, useAsync } from '../components.js';
import { money, percent, price, size } from '../format.js';
import { href } from '../router.js';
import type { Session } from '../session.js';

type Tier = 'HIGH' | 'MEDIUM' | 'LOW';
type Consolidated = Result<'/api/v1/orderbook/consolidated'>;

export function CrossVenuePage({ session, svcId }: { session: Session; svcId: string | null }) {
  const [draft, setDraft] = useState(svcId ?? '');
  const [tier, setTier] = useState<Tier>('HIGH');
  return (
    <>
      <h1>Cross-venue</h1>
      <form
        class="panel inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          location.hash = href('crossvenue', draft.trim());
        }}
      >
        <div class="field grow">
          <label for="cv-market">Market (svc_id)</label>
          <input
            id="cv-market"
            value={draft}
            placeholder="kalshi:KX…"
            onInput={(e) => setDraft(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="cv-tier">Weakest link</label>
          <select id="cv-tier" value={tier} onChange={(e) => setTier(e.currentTarget.value as Tier)}>
            <option>HIGH</option>
            <option>MEDIUM</option>
            <option>LOW</option>
          </select>
        </div>
        <button type="submit">Show book</button>
      </form>
      <div>
        {svcId ? (
          <ConsolidatedBook session={session} svcId={svcId} tier={tier} />
        ) : (
          <Section title="Consolidated book" id="consolidated">
            <p class="muted">Pick a market above, or open one and follow “Cross-venue book”.</p>
          </Section>
        )}
        <Arbitrage session={session} tier={tier} />
      </div>
    </>
  );
}

function Levels({ title, levels }: { title: string; levels: Consolidated['bids'] }) {
  return (
    <div class="table-wrap">
      <table>
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col" class="num">
              Price
            </th>
            <th scope="col" class="num">
              Size
            </th>
            <th scope="col">Exchange</th>
            <th scope="col" class="num">
              After fee
            </th>
          </tr>
        </thead>
        <tbody>
          {levels.slice(0, 15).map(([p, s, ex, net], i) => (
            <tr key={i}>
              <td class="num">{price(p)}</td>
              <td class="num">{size(s)}</td>
              <td>
                <ExchangeBadge exchange={ex} />
              </td>
              <td class="num">{price(net)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ConsolidatedBook({ session, svcId, tier }: { session: Session; svcId: string; tier: Tier }) {
  const book = useAsync(
    (signal) =>
      session.client.consolidatedOrderbook({ svc_id: svcId, min_tier: tier, limit: 50 }, { signal }),
    [session, svcId, tier],
  );
  return (
    <Section title="Consolidated book" id="consolidated">
      <p>
        <a href={href('market', svcId)}>{svcId}</a>{' '}
        <button type="button" class="secondary" onClick={book.reload}>
          Refresh
        </button>
      </p>
      {book.error !== null && <ErrorNote error={book.error} />}
      {book.loading && !book.data && <Loading what="the books" />}
      {book.data && (
        <>
          <div class="table-wrap">
            <table data-testid="cv-venues">
              <caption>Venues used</caption>
              <thead>
                <tr>
                  <th scope="col">Exchange</th>
                  <th scope="col">Market</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Link</th>
                  <th scope="col">Book</th>
                </tr>
              </thead>
              <tbody>
                {book.data.venues.map((v) => (
                  <tr key={v.svc_id}>
                    <td>
                      <ExchangeBadge exchange={v.exchange} />
                    </td>
                    <td>
                      <a href={href('market', v.svc_id)} title={v.svc_id}>
                        {shortId(v.svc_id)}
                      </a>
                    </td>
                    <td>
                      {v.outcome ?? '—'}
                      {v.inverted ? ' (inverted)' : ''}
                    </td>
                    <td>{v.link_tier ? `${v.link_tier} (${percent(v.link_confidence)})` : 'this market'}</td>
                    <td>{v.error ? `${v.book_state}: ${v.error.code}` : v.book_state}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div class="two">
            <Levels title={`Bids · ${book.data.outcome}`} levels={book.data.bids} />
            <Levels title={`Asks · ${book.data.outcome}`} levels={book.data.asks} />
          </div>
        </>
      )}
    </Section>
  );
}

function Arbitrage({ session, tier }: { session: Session; tier: Tier }) {
  const [unsafe, setUnsafe] = useState(false);
  const scan = useAsync(
    (signal) => session.client.arbitrage({ min_tier: tier, include_unsafe: unsafe, limit: 25 }, { signal }),
    [session, tier, unsafe],
  );
  return (
    <Section title="Arbitrage" id="arbitrage">
      <p class="inline-form">
        <label class="check">
          <input type="checkbox" checked={unsafe} onChange={(e) => setUnsafe(e.currentTarget.checked)} />
          Include pairs whose resolution rules differ
        </label>
        <button type="button" class="secondary" onClick={scan.reload}>
          Rescan
        </button>
      </p>
      {scan.error !== null && <ErrorNote error={scan.error} />}
      {scan.loading && !scan.data && <Loading what="the scan" />}
      {scan.data && (
        <>
          <p class="muted" data-testid="arb-scan">
            {scan.data.scan.pairs} linked pairs, {scan.data.scan.books} books read,{' '}
            {scan.data.scan.failed.length} failed · {scan.data.pagination.total} opportunities
          </p>
          {scan.data.opportunities.length === 0 ? (
            <p class="muted">No opportunity right now.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="sr-only">Arbitrage opportunities, best edge first</caption>
                <thead>
                  <tr>
                    <th scope="col">Buy</th>
                    <th scope="col">And buy</th>
                    <th scope="col" class="num">
                      Edge
                    </th>
                    <th scope="col" class="num">
                      Max size
                    </th>
                    <th scope="col" class="num">
                      Max profit
                    </th>
                    <th scope="col">Link</th>
                    <th scope="col">Resolution</th>
                  </tr>
                </thead>
                <tbody>
                  {scan.data.opportunities.map((o) => (
                    <tr key={o.id}>
                      {o.legs.map((leg) => (
                        <td key={leg.svc_id}>
                          <ExchangeBadge exchange={leg.exchange} /> {leg.outcome} @ {price(leg.best_price)}{' '}
                          <a href={href('market', leg.svc_id)} aria-label={`open ${leg.svc_id}`}>
                            ↗
                          </a>
                        </td>
                      ))}
                      <td class="num">{(o.edge_bps / 100).toFixed(2)}%</td>
                      <td class="num">{size(o.max_profitable_size)}</td>
                      <td class="num">{money(o.max_net_profit)}</td>
                      <td>
                        {o.link.confidence_tier} ({percent(o.link_confidence)})
                      </td>
                      <td>
                        {o.unsafe
                          ? `differs: ${o.resolution_check.differences.join(', ')}`
                          : o.resolution_check.checked
                            ? 'same rules'
                            : 'not checked'}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </Section>
  );
}

/** A long native id (a 66-character condition id) cut for the table; the link's title keeps it whole. */
function shortId(svcId: string): string {
  return svcId.length > 36 ? `${svcId.slice(0, 32)}…` : svcId;
}
