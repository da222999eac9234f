// This key, its usage against its tier's limits, every key (admin keys), and the builder's end-users and QPS pool
// (builder keys).
import { isOmnibookError } from '@omnibook/client';
import { useState } from 'preact/hooks';
import { ErrorNote, Section, useAsync } from '../components.js';
import { dateTime, size } from '../format.js';
import type { Session } from '../session.js';

export function KeysView({ session }: { session: Session }) {
  const { key } = session;
  const usage = useAsync((signal) => session.client.usage({ signal }), [session]);
  const admin = key.tier === 'admin';
  const keys = useAsync(
    (signal) => (admin ? session.client.listKeys({ signal }) : Promise.resolve(null)),
    [session, admin],
  );
  const [created, setCreated] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [name, setName] = useState('');
  const [tier, setTier] = useState<'free' | 'pro' | 'scale' | 'admin'>('free');
  return (
    <Section title="API keys and usage" id="keys">
      <dl class="quote">
        <div>
          <dt>This key</dt>
          <dd>
            {key.name || '(unnamed)'} · {key.prefix} · {key.tier}
            {key.builder ? ' · builder' : ''}
          </dd>
        </div>
        {usage.data && (
          <>
            <div>
              <dt>Requests this period</dt>
              <dd>
                {size(usage.data.usage.monthly_requests)}
                {usage.data.limits.monthly_requests > 0
                  ? ` of ${size(usage.data.limits.monthly_requests)}`
                  : ' (no monthly cap)'}
              </dd>
            </div>
            <div>
              <dt>Rate limit</dt>
              <dd>
                {usage.data.limits.rest_qps}/s (burst {usage.data.limits.rest_qps_burst})
              </dd>
            </div>
            <div>
              <dt>WebSocket</dt>
              <dd>
                {usage.data.usage.ws_active_connections} connections,{' '}
                {usage.data.usage.ws_active_subscriptions} of {usage.data.limits.ws_max_subscriptions}{' '}
                subscriptions
              </dd>
            </div>
            <div>
              <dt>Period</dt>
              <dd>
                {dateTime(usage.data.billing_period_start)} – {dateTime(usage.data.billing_period_end)}
              </dd>
            </div>
          </>
        )}
      </dl>
      {usage.error !== null && <ErrorNote error={usage.error} />}
      {admin && (
        <>
          <h3>All keys</h3>
          <form
            class="inline-form"
            onSubmit={async (e) => {
              e.preventDefault();
              setError(null);
              try {
                const made = await session.client.createKey({ name, tier });
                setCreated(made.key);
                keys.reload();
              } catch (err) {
                setError(err);
              }
            }}
          >
            <div class="field">
              <label for="key-name">New key name</label>
              <input id="key-name" value={name} required onInput={(e) => setName(e.currentTarget.value)} />
            </div>
            <div class="field">
              <label for="key-tier">Tier</label>
              <select
                id="key-tier"
                value={tier}
                onChange={(e) => setTier(e.currentTarget.value as typeof tier)}
              >
                <option>free</option>
                <option>pro</option>
                <option>scale</option>
                <option>admin</option>
              </select>
            </div>
            <button type="submit">Create key</button>
          </form>
          {created && (
            <p class="ok-note" role="status">
              New key (shown once, copy it now): <code>{created}</code>
            </p>
          )}
          {error !== null && <ErrorNote error={error} />}
          {keys.data && (
            <div class="table-wrap">
              <table>
                <caption class="sr-only">Every API key</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Prefix</th>
                    <th scope="col">Tier</th>
                    <th scope="col">Created</th>
                    <th scope="col">State</th>
                    <th scope="col">
                      <span class="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {keys.data.map((k) => (
                    <tr key={k.id}>
                      <td>{k.name}</td>
                      <td class="mono">{k.prefix}</td>
                      <td>{k.tier}</td>
                      <td>{dateTime(k.created_at)}</td>
                      <td>{k.revoked_at ? `revoked ${dateTime(k.revoked_at)}` : 'active'}</td>
                      <td>
                        {!k.revoked_at && k.id !== key.id && (
                          <button
                            type="button"
                            class="secondary"
                            aria-label={`Revoke key ${k.name || k.prefix}`}
                            onClick={async () => {
                              try {
                                await session.client.revokeKey(k.id);
                              } catch (err) {
                                setError(err);
                              }
                              keys.reload();
                            }}
                          >
                            Revoke
                          </button>
                        )}
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

export function BuilderView({ session }: { session: Session }) {
  const builder = session.key.builder;
  const pool = useAsync(
    (signal) => (builder ? session.client.builderPool({ signal }) : Promise.resolve(null)),
    [session, builder],
  );
  const users = useAsync(
    (signal) =>
      builder ? session.client.listBuilderUsers({ limit: 50 }, { signal }) : Promise.resolve(null),
    [session, builder],
  );
  return (
    <Section title="Builder" id="builder">
      {!builder && <p class="muted">End-users and the QPS pool are for builder keys; this key is not one.</p>}
      {pool.error !== null && !(isOmnibookError(pool.error) && pool.error.status === 403) && (
        <ErrorNote error={pool.error} />
      )}
      {pool.data && (
        <p>
          {pool.data.end_user_count} end-users · {pool.data.total_allocated_qps} of {pool.data.qps_pool} QPS
          allocated
        </p>
      )}
      {users.data && users.data.users.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">End-users</caption>
            <thead>
              <tr>
                <th scope="col">External id</th>
                <th scope="col">Status</th>
                <th scope="col">Tier</th>
                <th scope="col" class="num">
                  QPS
                </th>
                <th scope="col">Exchanges</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {users.data.users.map((u) => (
                <tr key={u.customer_id}>
                  <td>{u.external_id}</td>
                  <td>{u.status}</td>
                  <td>{u.tier}</td>
                  <td class="num">{u.qps_limit}</td>
                  <td>{u.linked_exchanges.join(', ') || '—'}</td>
                  <td>{dateTime(u.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}
