// The window GET /price reads: the default range per interval before end_ts, the tier's history window (clamping a
// default, refusing an explicit start), at_ts and the period it covers, and the bound on candles per answer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../../../src/errors/app-error.js';
import { MAX_CANDLES, priceWindow } from '../../../../src/services/market-data/price-service.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const caller = (days: number) => ({ requestId: 'r', logger: silent, tenant: null, historyMaxAgeDays: days });
const unlimited = caller(0);
const free = caller(5);
const DAY = 86_400;
// 2027-01-15T07:46:40Z, a Friday.
const NOW = 1_799_999_200;

function refused(run: () => unknown, pattern: RegExp): void {
  assert.throws(run, (e: unknown) => {
    assert.ok(e instanceof AppError && e.code === 'validation_error' && e.status === 400, String(e));
    assert.match(e.message, pattern);
    return true;
  });
}

test('without start_ts the window is the interval’s default range before end_ts (or now)', () => {
  const ranges = {
    '1m': DAY,
    '1h': 7 * DAY,
    '6h': 14 * DAY,
    '1d': 14 * DAY,
    '1w': 30 * DAY,
    max: 30 * DAY,
  } as const;
  for (const [interval, range] of Object.entries(ranges) as Array<[keyof typeof ranges, number]>) {
    assert.deepEqual(priceWindow({ interval }, unlimited, NOW), {
      startTs: NOW - range,
      endTs: NOW,
      atTs: null,
    });
    const endTs = NOW - 40 * DAY;
    assert.deepEqual(priceWindow({ interval, end_ts: endTs }, unlimited, NOW), {
      startTs: endTs - range,
      endTs,
      atTs: null,
    });
  }
  // An end in the future reads up to now.
  assert.equal(priceWindow({ interval: '1h', end_ts: NOW + DAY }, unlimited, NOW).endTs, NOW);
});

test('the tier clamps a default start and refuses an explicit one (or an end, or at_ts) beyond it', () => {
  assert.equal(priceWindow({ interval: '1w' }, free, NOW).startTs, NOW - 5 * DAY);
  assert.equal(priceWindow({ interval: '1m' }, free, NOW).startTs, NOW - DAY, 'inside the tier: untouched');
  assert.equal(priceWindow({ interval: '1h', start_ts: NOW - 5 * DAY }, free, NOW).startTs, NOW - 5 * DAY);
  refused(() => priceWindow({ interval: '1h', start_ts: NOW - 5 * DAY - 1 }, free, NOW), /start_ts is older/);
  refused(() => priceWindow({ interval: '1h', end_ts: NOW - 6 * DAY }, free, NOW), /end_ts is older/);
  refused(() => priceWindow({ interval: '1h', at_ts: NOW - 6 * DAY }, free, NOW), /at_ts is older/);
});

test('at_ts reads from its default range back to the end of the period holding it', () => {
  const at = NOW - 3 * DAY + 1_234;
  const hourStart = Math.floor(at / 3_600) * 3_600;
  assert.deepEqual(priceWindow({ interval: '1h', at_ts: at }, unlimited, NOW), {
    startTs: at - 7 * DAY,
    endTs: hourStart + 3_599,
    atTs: at,
  });
  // A week runs Monday to Sunday; at_ts on a Wednesday reads to Sunday 23:59:59 UTC.
  const wednesday = Date.parse('2027-01-06T12:00:00Z') / 1000;
  assert.equal(
    priceWindow({ interval: '1w', at_ts: wednesday }, unlimited, NOW).endTs,
    Date.parse('2027-01-10T23:59:59Z') / 1000,
  );
  // The period still running ends now; max is the window up to at_ts itself.
  assert.equal(priceWindow({ interval: '1d', at_ts: NOW - 60 }, unlimited, NOW).endTs, NOW);
  assert.deepEqual(priceWindow({ interval: 'max', at_ts: at }, unlimited, NOW), {
    startTs: at - 30 * DAY,
    endTs: at,
    atTs: at,
  });
  // The default lookback of at_ts is clamped to the tier, like any default.
  assert.equal(priceWindow({ interval: '1w', at_ts: NOW - DAY }, free, NOW).startTs, NOW - 5 * DAY);
});

test('at_ts stands alone and is not in the future; start_ts is not after end_ts; candles per answer are bounded', () => {
  refused(
    () => priceWindow({ interval: '1h', at_ts: NOW - DAY, start_ts: NOW - 2 * DAY }, unlimited, NOW),
    /without start_ts/,
  );
  refused(
    () => priceWindow({ interval: '1h', at_ts: NOW - DAY, end_ts: NOW }, unlimited, NOW),
    /without start_ts/,
  );
  refused(() => priceWindow({ interval: '1h', at_ts: NOW + 1 }, unlimited, NOW), /future/);
  refused(
    () => priceWindow({ interval: '1h', start_ts: NOW - DAY, end_ts: NOW - 2 * DAY }, unlimited, NOW),
    /after end_ts/,
  );
  refused(() => priceWindow({ interval: '1h', start_ts: NOW + 10 }, unlimited, NOW), /after end_ts/);
  assert.equal(MAX_CANDLES, 10_080);
  priceWindow({ interval: '1m', start_ts: NOW - 7 * DAY }, unlimited, NOW);
  refused(
    () => priceWindow({ interval: '1m', start_ts: NOW - 7 * DAY - 60 }, unlimited, NOW),
    /more than 10080 1m candles/,
  );
  // max is one candle whatever the window.
  priceWindow({ interval: 'max', start_ts: 0 }, unlimited, NOW);
});
