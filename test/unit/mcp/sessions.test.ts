// McpSessions on a stepped clock: sessions expire after idleMs unused, a key past its cap loses its least recently
// used session, the node-wide cap refuses until an expired session is swept, and a session answers only its key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type McpSession, McpSessions } from '../../../src/mcp/sessions.js';

function setup(limits = { maxSessions: 3, maxSessionsPerKey: 2, idleMs: 1_000 }) {
  let now = 0;
  const closed: string[] = [];
  const sessions = new McpSessions(limits, () => now);
  const session = (id: string, keyId: string): McpSession => ({
    id,
    keyId,
    close: () => void closed.push(id),
  });
  const settle = () => new Promise((r) => setImmediate(r));
  return { sessions, session, closed, settle, step: (ms: number) => (now += ms) };
}

test('a session used within idleMs stays; one idle for idleMs is gone and closed', async () => {
  const { sessions, session, closed, settle, step } = setup();
  sessions.add(session('a', 'k1'));
  step(999);
  assert.ok(sessions.use('a', 'k1'));
  step(999);
  assert.ok(sessions.use('a', 'k1'), 'each use restarts the idle time');
  step(1_000);
  assert.equal(sessions.use('a', 'k1'), undefined);
  await settle();
  assert.deepEqual(closed, ['a']);
  assert.equal(sessions.size, 0);
});

test('another key never reaches a session, and asking does not end it', () => {
  const { sessions, session } = setup();
  sessions.add(session('a', 'k1'));
  assert.equal(sessions.use('a', 'k2'), undefined);
  assert.ok(sessions.use('a', 'k1'));
});

test("a key past its cap closes its own least recently used session, not another key's", async () => {
  const { sessions, session, closed, settle, step } = setup({
    maxSessions: 10,
    maxSessionsPerKey: 2,
    idleMs: 1e6,
  });
  sessions.add(session('a', 'k1'));
  step(1);
  sessions.add(session('b', 'k1'));
  sessions.add(session('x', 'k2'));
  step(1);
  assert.ok(sessions.use('a', 'k1'), 'a is now the more recently used');
  sessions.add(session('c', 'k1'));
  await settle();
  assert.deepEqual(closed, ['b']);
  assert.ok(sessions.use('a', 'k1') && sessions.use('c', 'k1') && sessions.use('x', 'k2'));
  assert.equal(sessions.size, 3);
});

test('the node-wide cap refuses a new session until an idle one expires; sweep closes only expired ones', async () => {
  const { sessions, session, closed, settle, step } = setup({
    maxSessions: 2,
    maxSessionsPerKey: 2,
    idleMs: 1_000,
  });
  sessions.add(session('a', 'k1'));
  step(500);
  sessions.add(session('b', 'k2'));
  assert.equal(sessions.hasRoom(), false);
  step(500);
  assert.equal(sessions.hasRoom(), true, 'a expired and was swept');
  await settle();
  assert.deepEqual(closed, ['a']);
  assert.ok(sessions.use('b', 'k2'));
  assert.equal(sessions.sweep(), 0);
});

test('forget removes without closing (the client ended it); closeAll closes the rest', async () => {
  const { sessions, session, closed } = setup();
  sessions.add(session('a', 'k1'));
  sessions.add(session('b', 'k1'));
  sessions.forget('a');
  sessions.add(session('c', 'k1'));
  assert.equal(sessions.size, 2, 'the forgotten session no longer counts towards its key');
  await sessions.closeAll();
  assert.deepEqual(closed.sort(), ['b', 'c']);
  assert.equal(sessions.size, 0);
});
