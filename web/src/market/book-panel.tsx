// The live book: its state (live, stale, resyncing) always in view and announced, the ladder, and the depth chart.
import { Section } from '../components.js';
import { price, size } from '../format.js';
import { type LiveBookState, stateLabel } from '../live-book.js';
import { DepthChart } from './depth-chart.js';

export function BookPanel({ book, outcome }: { book: LiveBookState; outcome: string }) {
  const label = stateLabel(book);
  const bids = book.view?.bids ?? [];
  const asks = book.view?.asks ?? [];
  const rows = Math.max(bids.length, asks.length);
  const spread = bids[0] && asks[0] ? asks[0][0] - bids[0][0] : null;
  return (
    <Section title={`Order book · ${outcome}`} id="book">
      <p class="book-meta">
        <span class={`state state-${label.tone}`} data-testid="book-state" role="status">
          {label.text}
        </span>
        <span>spread {price(spread)}</span>
        <span>seq {book.view?.server_seq ?? '—'}</span>
        <span>feed {book.view?.feed_state ?? '—'}</span>
      </p>
      {book.error !== null && book.error !== undefined && (
        <p class="error" role="alert">
          {String((book.error as Error).message ?? book.error)}
        </p>
      )}
      <div class="table-wrap">
        <table class="ladder" data-testid="book-ladder">
          <caption class="sr-only">Bids and asks, best first</caption>
          <thead>
            <tr>
              <th scope="col" class="num">
                Bid size
              </th>
              <th scope="col" class="num">
                Bid
              </th>
              <th scope="col" class="num">
                Ask
              </th>
              <th scope="col" class="num">
                Ask size
              </th>
            </tr>
          </thead>
          <tbody>
            {Array.from({ length: rows }, (_, i) => (
              <tr key={i}>
                <td class="num">{bids[i] ? size(bids[i][1]) : ''}</td>
                <td class="num bid">{bids[i] ? price(bids[i][0]) : ''}</td>
                <td class="num ask">{asks[i] ? price(asks[i][0]) : ''}</td>
                <td class="num">{asks[i] ? size(asks[i][1]) : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <DepthChart bids={bids} asks={asks} />
    </Section>
  );
}
