// Sign in with an API key: checked against GET /keys/self, then kept in this tab's sessionStorage only.
import { useState } from 'preact/hooks';
import { ErrorNote } from '../components.js';
import { type Session, signIn } from '../session.js';

export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="panel signin-form"
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        setError(null);
        try {
          onSignedIn(await signIn(key.trim()));
        } catch (e) {
          setError(e);
        } finally {
          setBusy(false);
        }
      }}
    >
      <h1>Omnibook console</h1>
      <p>
        Sign in with an API key (<code>npm run sandbox</code> prints one). It stays in this tab's session
        storage and is sent only to this server.
      </p>
      <label for="api-key">API key</label>
      <input
        id="api-key"
        name="api-key"
        type="password"
        autocomplete="off"
        required
        value={key}
        onInput={(e) => setKey(e.currentTarget.value)}
      />
      <button type="submit" disabled={busy || key.trim() === ''}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
      {error !== null && <ErrorNote error={error} />}
    </form>
  );
}
