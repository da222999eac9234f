// The same question on other venues (same_market links) and co-dependent markets (related), side by side with this
// one: each linked market's live best bid and ask from the WebSocket, the link's confidence and its resolution
// check (what could make the two settle differently).
import type { OmnibookClient, Result } from '@omnibook/client';
import { ExchangeBadge, Section } from '../components.js';
import { percent, price } from '../format.js';
import { useLiveBook } from '../live-book.js';
import { href } from '../router.js';

type Market = Result<'/api/v1/markets'>['markets'][number];
type Link = NonNullable<Market['matched_markets']>[number];

function ResolutionCheck({ link }: { link: Link }) {
  const check = link.resolution_check;
  if (!check) return <span class="muted">not checked</span>;
  if (check.comparable) return <span class="state state-ok">same rules</span>;
  return <span class="state state-warn">differs: {check.differences.join(', ')}</span>;
}

function LinkedRow({
  client,
  link,
  market,
  live,
}: {
  client: OmnibookClient;
  link: Link;
  market: Market | undefined;
  live: boolean;
}) {
  const outcome = market?.outcomes[0]?.name ?? null;
  const book = useLiveBook(client, live && market ? link.svc_id : null, outcome, 1);
  const bid = book.view?.bids[0]?.[0] ?? market?.best_bid ?? null;
  const ask = book.view?.asks[0]?.[0] ?? market?.best_ask ?? null;
  return (
    <tr data-svc-id={link.svc_id}>
      <td>
        <ExchangeBadge exchange={link.exchange} />
      </td>
      <td>
        <a href={href('market', link.svc_id)}>{market?.question ?? link.svc_id}</a>
      </td>
      <td class="num" data-testid="twin-bid">
        {price(bid)}
      </td>
      <td class="num" data-testid="twin-ask">
        {price(ask)}
      </td>
      <td>
        {link.confidence_tier} ({percent(link.confidence)})
      </td>
      <td>
        <ResolutionCheck link={link} />
      </td>
      <td data-testid="twin-book">
        {book.view ? (book.view.state === 'fresh' ? 'live' : book.view.state) : live ? '…' : 'snapshot'}
      </td>
    </tr>
  );
}

export function MatchesPanel({
  client,
  market,
  linked,
  best,
}: {
  client: OmnibookClient;
  market: Market;
  linked: Map<string, Market>;
  /** This market's live best bid and ask (the catalogue's until the book arrives). */
  best: { bid: number | null; ask: number | null };
}) {
  const groups: Array<[string, Link[]]> = [
    ['Same market elsewhere', market.matched_markets ?? []],
    ['Related markets', market.related_markets ?? []],
  ];
  return (
    <Section title="Matched and related markets" id="matches" wide>
      <p class="muted">
        This market: bid {price(best.bid ?? market.best_bid)} / ask {price(best.ask ?? market.best_ask)} on{' '}
        <ExchangeBadge exchange={market.exchange} />
      </p>
      {groups.map(([title, links], g) => (
        <div key={title}>
          <h3>{title}</h3>
          {links.length === 0 ? (
            <p class="muted">None published.</p>
          ) : (
            <div class="table-wrap">
              <table data-testid={g === 0 ? 'matched' : 'related'}>
                <caption class="sr-only">{title}</caption>
                <thead>
                  <tr>
                    <th scope="col">Exchange</th>
                    <th scope="col">Market</th>
                    <th scope="col" class="num">
                      Bid
                    </th>
                    <th scope="col" class="num">
                      Ask
                    </th>
                    <th scope="col">Confidence</th>
                    <th scope="col">Resolution</th>
                    <th scope="col">Book</th>
                  </tr>
                </thead>
                <tbody>
                  {links.map((link, i) => (
                    <LinkedRow
                      key={link.svc_id}
                      client={client}
                      link={link}
                      market={linked.get(link.svc_id)}
                      live={g === 0 && i < 4}
                    />
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </div>
      ))}
    </Section>
  );
}
