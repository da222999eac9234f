// The console's shell: sign-in gate, navigation and the page the hash names.
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { AccountPage } from './pages/account.js';
import { CrossVenuePage } from './pages/crossvenue.js';
import { MarketPage } from './pages/market.js';
import { SearchPage } from './pages/search.js';
import { SignIn } from './pages/sign-in.js';
import { href, useRoute } from './router.js';
import { resume, type Session, signOut, withCredentials } from './session.js';

function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [checking, setChecking] = useState(true);
  const route = useRoute();
  useEffect(() => {
    resume().then((s) => {
      setSession(s);
      setChecking(false);
    });
  }, []);
  // A new page moves focus to its content (announced by screen readers, Tab continues from there); the search page
  // puts it in its keyword box itself.
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    if (route.page !== 'search') document.getElementById('main')?.focus();
  }, [route.page, route.arg]);
  useEffect(() => {
    const titles = { search: 'Search', market: 'Market', crossvenue: 'Cross-venue', account: 'Account' };
    document.title = `${session ? titles[route.page] : 'Sign in'} · Omnibook console`;
  }, [route.page, session]);

  if (checking) return <p class="boot">Checking your session…</p>;
  if (!session) {
    return (
      <main id="main" class="signin">
        <SignIn onSignedIn={setSession} />
      </main>
    );
  }
  const nav: Array<[typeof route.page, string]> = [
    ['search', 'Search'],
    ['crossvenue', 'Cross-venue'],
    ['account', 'Account'],
  ];
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href('search')}>
          Omnibook
        </a>
        <nav aria-label="Pages">
          <ul>
            {nav.map(([page, label]) => (
              <li key={page}>
                <a href={href(page)} aria-current={route.page === page ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          {session.key.name || session.key.prefix} · {session.key.tier}
          {session.key.builder ? ' · builder' : ''}
        </span>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            signOut(session);
            setSession(null);
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {route.page === 'search' && <SearchPage session={session} />}
        {route.page === 'market' && route.arg && <MarketPage session={session} svcId={route.arg} />}
        {route.page === 'crossvenue' && <CrossVenuePage session={session} svcId={route.arg} />}
        {route.page === 'account' && (
          <AccountPage
            session={session}
            market={route.params.get('market')}
            onCredentials={(credentials) => setSession(withCredentials(session, credentials))}
          />
        )}
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
