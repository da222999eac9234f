// The Limitless simulator checks the HMAC `lmts-timestamp` window against wall time, as the real venue does: moving
// the simulated clock (POST /__sim/clock, which only drives market evolution) must not make correctly signed REST
// requests or Socket.IO handshakes stale, and a timestamp outside 30 s of wall time stays refused on both paths.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { HttpClient, PortfolioFetcher, WebSocketClient } from '@limitless-exchange/sdk';
import { io } from 'socket.io-client';
import { WS_SIGNED_PATH } from '../../../sim/limitless/auth.js';
import { type LimitlessSim, startLimitlessSim } from '../../../sim/limitless/index.js';
import type { SimAccount } from '../../../sim/shared/control.js';
import { control, getJson, signed } from './helpers.js';

const DAY_S = 86_400;

let sim: LimitlessSim;
let account: SimAccount;
let simNowMs: number;
before(async () => {
  sim = await startLimitlessSim({ seed: 5, size: 40 });
  account = await sim.createAccount({ holdings: 1 });
  simNowMs = ((await control(sim, 'POST', 'clock', { advance_seconds: DAY_S })) as { now_ms: number }).now_ms;
});
after(() => sim.close());

const hmac = () => ({
  tokenId: account.credentials.token_id ?? '',
  secret: account.credentials.secret ?? '',
});

test('after the simulated clock moved a day, the SDK signs REST requests with wall time and they are accepted', async () => {
  assert.ok(simNowMs - Date.now() > DAY_S * 1000 - 60_000, 'the control surface moved the clock a day ahead');
  const portfolio = new PortfolioFetcher(new HttpClient({ baseURL: sim.url, hmacCredentials: hmac() }));
  const positions = await portfolio.getPositions();
  assert.equal(positions.clob.length, 1);
});

test('after the simulated clock moved, stale and simulated-clock timestamps are still refused on REST', async () => {
  const path = '/portfolio/positions';
  const at = (ms: number) => getJson(sim, path, signed(account.credentials, 'GET', path, new Date(ms)));
  assert.equal((await at(Date.now())).status, 200);
  assert.equal((await at(Date.now() - 40_000)).status, 401, 'older than 30 s of wall time');
  assert.equal((await at(simNowMs)).status, 401, 'the simulated clock is not the auth clock');
});

test('after the simulated clock moved, the SDK WebSocket handshake still authenticates; a stale one is refused', async () => {
  const ws = new WebSocketClient({ url: sim.wsUrl, hmacCredentials: hmac(), autoReconnect: false });
  try {
    await ws.connect();
    assert.ok(ws.isConnected());
  } finally {
    await ws.disconnect();
  }
  for (const ms of [Date.now() - 120_000, simNowMs]) {
    const socket = io(`${sim.wsUrl}/markets`, {
      transports: ['websocket'],
      reconnection: false,
      extraHeaders: signed(account.credentials, 'GET', WS_SIGNED_PATH, new Date(ms)),
    });
    try {
      await assert.rejects(
        new Promise<void>((resolve, reject) => {
          socket.once('connect', () => resolve());
          socket.once('connect_error', reject);
        }),
        /Unauthorized/,
      );
    } finally {
      socket.disconnect();
    }
  }
});
