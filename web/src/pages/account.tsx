// Account: exchange credentials for this tab, balances per exchange, the order ticket, orders, fills, positions,
// API keys and usage, and the builder's users and pool.
import { useState } from 'preact/hooks';
import { BuilderView, KeysView } from '../account/keys-views.js';
import { OrderTicket } from '../account/order-ticket.js';
import { BalanceCard, FillsView, OrdersView, PositionsView } from '../account/trading-views.js';
import { ErrorNote, Section } from '../components.js';
import { type Credentials, EXCHANGES, parseCredentials, type Session } from '../session.js';

export function AccountPage({
  session,
  market,
  onCredentials,
}: {
  session: Session;
  market: string | null;
  onCredentials: (c: Credentials) => void;
}) {
  const withCredentials = EXCHANGES.filter((ex) => session.credentials[ex] !== undefined);
  const [exchange, setExchange] = useState(
    () =>
      (market?.split(':')[0] && EXCHANGES.find((e) => e === market.split(':')[0])) ||
      withCredentials[0] ||
      'kalshi',
  );
  const [version, setVersion] = useState(0);
  // Private reads need credentials: this tab's, or (when asked) the ones stored for the key via POST /onboard.
  const [useStored, setUseStored] = useState(false);
  const ready = session.credentials[exchange] !== undefined || useStored;
  return (
    <>
      <h1>Account</h1>
      <div class="grid">
        <CredentialsForm session={session} onCredentials={onCredentials} />
        <Section title="Balances" id="balances">
          {withCredentials.length === 0 ? (
            <p class="muted">Add exchange credentials to see balances.</p>
          ) : (
            <div class="cards">
              {withCredentials.map((ex) => (
                <BalanceCard key={ex} session={session} exchange={ex} version={version} />
              ))}
            </div>
          )}
        </Section>
        <OrderTicket
          session={session}
          initialMarket={market}
          onPlaced={(ex) => {
            setExchange(ex);
            setVersion((v) => v + 1);
          }}
        />
        <Section title="Exchange" id="exchange-pick">
          <div class="field">
            <label for="account-exchange">Orders, fills and positions on</label>
            <select
              id="account-exchange"
              value={exchange}
              onChange={(e) => setExchange(e.currentTarget.value)}
            >
              {EXCHANGES.map((ex) => (
                <option key={ex}>{ex}</option>
              ))}
            </select>
          </div>
          {!ready && (
            <p>
              No {exchange} credentials in this tab.{' '}
              <button type="button" class="secondary" onClick={() => setUseStored(true)}>
                Use the credentials stored for my key
              </button>
            </p>
          )}
        </Section>
        {ready && (
          <>
            <OrdersView session={session} exchange={exchange} version={version} />
            <FillsView session={session} exchange={exchange} version={version} />
            <PositionsView session={session} exchange={exchange} version={version} />
          </>
        )}
        <KeysView session={session} />
        <BuilderView session={session} />
      </div>
    </>
  );
}

function CredentialsForm({
  session,
  onCredentials,
}: {
  session: Session;
  onCredentials: (c: Credentials) => void;
}) {
  const [text, setText] = useState('');
  const [error, setError] = useState<unknown>(null);
  const held = Object.keys(session.credentials);
  return (
    <Section title="Exchange credentials" id="credentials">
      <p class="muted">
        Paste <code>{'{ "<exchange>": { fields } }'}</code> — the sandbox's{' '}
        <code>data/sandbox-accounts.json</code> works as it is. Kept in this tab's session storage and sent
        per request as <code>X-Exchange-Credentials</code>; without them the credentials stored for your key
        are used.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setError(null);
          try {
            onCredentials(parseCredentials(text));
            setText('');
          } catch (err) {
            setError(err);
          }
        }}
      >
        <label for="credentials-json">Credentials JSON</label>
        <textarea
          id="credentials-json"
          rows={4}
          spellcheck={false}
          autocomplete="off"
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        <div class="actions">
          <button type="submit" disabled={text.trim() === ''}>
            Use these credentials
          </button>
          {held.length > 0 && (
            <button type="button" class="secondary" onClick={() => onCredentials({})}>
              Forget credentials
            </button>
          )}
        </div>
      </form>
      <p aria-live="polite" data-testid="credentials-held">
        {held.length > 0 ? `Credentials for: ${held.join(', ')}` : 'No credentials in this tab.'}
      </p>
      {error !== null && <ErrorNote error={error} />}
    </Section>
  );
}
