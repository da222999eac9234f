// Gamma REST: markets and events by offset pages and keyset cursors, by id and by slug, and /public-search. Direct
// filters (id, slug, condition id, token id) are answered from the catalogue's indexes; only list and search
// requests scan, and per-market figures are cached per house step so a 75k-market scan stays cheap.
import type { Catalogue, PmEvent, PmMarket } from './catalogue.js';
import type { PmContext } from './context.js';
import { GAMMA_ERRORS, gammaValidation } from './errors.js';
import { eventFigures, gammaEventJson, gammaMarketJson } from './gamma-payloads.js';
import { boolParam, type Ctx, intParam, listParam, numParam, type Route, send } from './http-util.js';
import { ALL_TAGS } from './phrasing.js';
import { marketStats } from './stats.js';

const DEPRECATED = {
  deprecation: 'true',
  sunset: 'Fri, 01 May 2026 00:00:00 GMT',
  warning: '299 - "use /markets/keyset"',
};

interface Figures {
  volume: number;
  liquidity: number;
}

type Filterable = { kind: 'market'; m: PmMarket } | { kind: 'event'; e: PmEvent };

export function gammaRoutes(pm: PmContext): Route[] {
  const { cat, exchange } = pm;
  const cache = new Map<number, { step: number; figures: Figures }>();

  const figures = (m: PmMarket): Figures => {
    const hit = cache.get(m.index);
    if (hit && hit.step === exchange.step && !exchange.isLive(m)) return hit.figures;
    const f = { volume: exchange.volume(m), liquidity: marketStats(m, exchange).liquidity };
    cache.set(m.index, { step: exchange.step, figures: f });
    return f;
  };

  const eventFigs = (e: PmEvent): Figures => {
    if (e.markets.length === 1 && e.markets[0]) return figures(e.markets[0]);
    return eventFigures(e, exchange);
  };

  /** Shared list filters; returns null (and answers 422) when a parameter is malformed. */
  const parseFilters = (ctx: Ctx, kind: 'market' | 'event') => {
    const q = ctx.query;
    const closed = boolParam(q, 'closed');
    const active = boolParam(q, 'active');
    const archived = boolParam(q, 'archived');
    const volPrefix = kind === 'market' ? 'volume_num' : 'volume';
    const liqPrefix = kind === 'market' ? 'liquidity_num' : 'liquidity';
    const nums = [`${volPrefix}_min`, `${volPrefix}_max`, `${liqPrefix}_min`, `${liqPrefix}_max`].map((n) =>
      numParam(q, n),
    );
    const dates = ['start_date_min', 'start_date_max', 'end_date_min', 'end_date_max'].map((n) => {
      const v = q.get(n);
      if (v === null || v === '') return undefined;
      const t = Date.parse(v);
      return Number.isNaN(t) ? null : t;
    });
    if ([closed, active, archived, ...nums, ...dates].some((v) => v === null)) {
      send(ctx, 422, gammaValidation('invalid filter parameters'));
      return null;
    }
    const tagId = q.get('tag_id');
    const [volMin, volMax, liqMin, liqMax] = nums as Array<number | undefined>;
    const [startMin, startMax, endMin, endMax] = dates as Array<number | undefined>;
    return (item: Filterable): boolean => {
      const prop = item.kind === 'market' ? item.m.prop : item.e.prop;
      const event = item.kind === 'market' ? item.m.event : item.e;
      const isClosed = prop.status !== 'active';
      const isArchived = event.markets[0]?.archived ?? false;
      if (closed !== undefined && closed !== isClosed) return false;
      if (active !== undefined && active !== true) return false;
      if (archived !== undefined && archived !== isArchived) return false;
      if (tagId !== null && !cat.tags(event).some((t) => t.id === tagId)) return false;
      const start = event.opened.getTime();
      const end = prop.closeTime.getTime();
      if (startMin !== undefined && start < startMin) return false;
      if (startMax !== undefined && start > startMax) return false;
      if (endMin !== undefined && end < endMin) return false;
      if (endMax !== undefined && end > endMax) return false;
      if (volMin !== undefined || volMax !== undefined || liqMin !== undefined || liqMax !== undefined) {
        const f = item.kind === 'market' ? figures(item.m) : eventFigs(item.e);
        if (volMin !== undefined && f.volume < volMin) return false;
        if (volMax !== undefined && f.volume > volMax) return false;
        if (liqMin !== undefined && f.liquidity < liqMin) return false;
        if (liqMax !== undefined && f.liquidity > liqMax) return false;
      }
      return true;
    };
  };

  // A Map: `order` is a query parameter, and `toString` or `constructor` must be an invalid field, not Object's.
  const SORT_KEYS = new Map<string, (f: () => Figures, e: PmEvent, id: number) => number>([
    ['id', (_f, _e, id) => id],
    ['volume', (f) => f().volume],
    ['volumeNum', (f) => f().volume],
    ['volume24hr', (f) => f().volume],
    ['liquidity', (f) => f().liquidity],
    ['liquidityNum', (f) => f().liquidity],
    ['startDate', (_f, e) => e.opened.getTime()],
    ['endDate', (_f, e) => e.prop.closeTime.getTime()],
    ['createdAt', (_f, e) => e.opened.getTime()],
  ]);

  /** Applies `order` + `ascending`; returns null (422 answered) for unknown order fields. */
  const sorter = <T>(ctx: Ctx, fig: (x: T) => Figures, event: (x: T) => PmEvent, id: (x: T) => number) => {
    const order = ctx.query.get('order');
    const ascending = boolParam(ctx.query, 'ascending');
    if (ascending === null) {
      send(ctx, 422, gammaValidation('ascending is invalid'));
      return null;
    }
    if (order === null || order === '') return (items: T[]) => items;
    const keys = order.split(',').map((k) => SORT_KEYS.get(k.trim()));
    if (keys.some((k) => k === undefined)) {
      send(ctx, 422, gammaValidation('order fields are not valid'));
      return null;
    }
    const dir = ascending === true ? 1 : -1;
    return (items: T[]) => {
      const decorated = items.map((x) => ({
        x,
        k: keys.map((key) => key?.(() => fig(x), event(x), id(x)) ?? 0),
      }));
      decorated.sort((a, b) => {
        for (let i = 0; i < a.k.length; i++) {
          const d = (a.k[i] ?? 0) - (b.k[i] ?? 0);
          if (d !== 0) return d * dir;
        }
        return id(a.x) - id(b.x);
      });
      return decorated.map((d) => d.x);
    };
  };

  const marketCandidates = (ctx: Ctx): PmMarket[] => {
    const q = ctx.query;
    const ids = listParam(q, 'id');
    const slugs = listParam(q, 'slug');
    const conditions = listParam(q, 'condition_ids');
    const tokens = listParam(q, 'clob_token_ids');
    if (ids.length + slugs.length + conditions.length + tokens.length === 0) return cat.markets;
    const found = new Set<PmMarket>();
    for (const id of ids) addIf(found, cat.byGammaId(id));
    for (const slug of slugs) addIf(found, cat.bySlug(slug));
    for (const c of conditions) addIf(found, cat.byConditionId(c));
    for (const t of tokens) addIf(found, cat.byToken(t)?.market);
    return [...found].sort((a, b) => a.index - b.index);
  };

  const eventCandidates = (ctx: Ctx): PmEvent[] => {
    const ids = listParam(ctx.query, 'id');
    const slugs = listParam(ctx.query, 'slug');
    if (ids.length + slugs.length === 0) return cat.events;
    const found = new Set<PmEvent>();
    for (const id of ids) addIf(found, cat.eventByGammaId(id));
    for (const slug of slugs) addIf(found, cat.eventBySlug(slug));
    return [...found].sort((a, b) => a.index - b.index);
  };

  /**
   * Filtered and sorted lists are cached by query (without the paging parameters) and book state, so walking
   * keyset pages of a 75k-market catalogue filters and sorts once, not once per page.
   */
  const lists = new Map<string, unknown[]>();
  const cached = <T>(ctx: Ctx, kind: string, build: () => T[] | null): T[] | null => {
    const params = [...ctx.query.entries()].filter(([k]) => !['limit', 'offset', 'after_cursor'].includes(k));
    const key = `${kind}|${exchange.step}|${exchange.version}|${new URLSearchParams(params).toString()}`;
    const hit = lists.get(key);
    if (hit) return hit as T[];
    const built = build();
    if (built) {
      if (lists.size >= 16) lists.delete(lists.keys().next().value as string);
      lists.set(key, built);
    }
    return built;
  };

  const listMarkets = (ctx: Ctx): PmMarket[] | null =>
    cached(ctx, 'markets', () => {
      const keep = parseFilters(ctx, 'market');
      if (!keep) return null;
      const sort = sorter<PmMarket>(
        ctx,
        figures,
        (m) => m.event,
        (m) => m.index,
      );
      if (!sort) return null;
      return sort(marketCandidates(ctx).filter((m) => keep({ kind: 'market', m })));
    });

  const listEvents = (ctx: Ctx): PmEvent[] | null =>
    cached(ctx, 'events', () => {
      const keep = parseFilters(ctx, 'event');
      if (!keep) return null;
      const sort = sorter<PmEvent>(
        ctx,
        eventFigs,
        (e) => e,
        (e) => e.index,
      );
      if (!sort) return null;
      return sort(eventCandidates(ctx).filter((e) => keep({ kind: 'event', e })));
    });

  const window = (ctx: Ctx, max: number): { limit: number; offset: number } | null => {
    const limit = intParam(ctx.query, 'limit');
    const offset = intParam(ctx.query, 'offset');
    if (limit === null || offset === null) {
      send(ctx, 422, gammaValidation('limit and offset must be non-negative integers'));
      return null;
    }
    return { limit: Math.min(limit ?? 20, max), offset: offset ?? 0 };
  };

  const keyset = <T>(ctx: Ctx, list: (ctx: Ctx) => T[] | null, key: string, render: (x: T) => unknown) => {
    const limit = intParam(ctx.query, 'limit');
    const cursor = ctx.query.get('after_cursor');
    const start = cursor === null || cursor === '' ? 0 : decodeKeyset(cursor);
    if (limit === null || start === null)
      return send(ctx, 422, gammaValidation('invalid limit or after_cursor'));
    if (ctx.query.has('offset'))
      return send(ctx, 422, gammaValidation('offset is not supported, use after_cursor'));
    const items = list(ctx);
    if (!items) return;
    const size = Math.min(limit ?? 20, 1000);
    const page = items.slice(start, start + size);
    const body: Record<string, unknown> = { [key]: page.map(render) };
    if (start + size < items.length) body.next_cursor = encodeKeyset(start + size);
    send(ctx, 200, body);
  };

  const renderMarket = (m: PmMarket) => gammaMarketJson(cat, exchange, m, true);
  const renderEvent = (e: PmEvent) => gammaEventJson(cat, exchange, e);

  return [
    {
      method: 'GET',
      path: '/markets',
      handler: (ctx) => {
        const w = window(ctx, 500);
        const items = w && listMarkets(ctx);
        if (w && items)
          send(ctx, 200, items.slice(w.offset, w.offset + w.limit).map(renderMarket), DEPRECATED);
      },
    },
    {
      method: 'GET',
      path: '/markets/keyset',
      handler: (ctx) => keyset(ctx, listMarkets, 'markets', renderMarket),
    },
    {
      method: 'GET',
      path: /^\/markets\/slug\/([^/]+)$/,
      handler: (ctx) => {
        const m = cat.bySlug(ctx.params[0] ?? '');
        return m ? send(ctx, 200, renderMarket(m)) : send(ctx, 404, GAMMA_ERRORS.slugNotFound);
      },
    },
    {
      method: 'GET',
      path: /^\/markets\/([^/]+)$/,
      handler: (ctx) => byId(ctx, cat, (id) => cat.byGammaId(id), renderMarket),
    },
    {
      method: 'GET',
      path: '/events',
      handler: (ctx) => {
        const w = window(ctx, 500);
        const items = w && listEvents(ctx);
        if (w && items) send(ctx, 200, items.slice(w.offset, w.offset + w.limit).map(renderEvent));
      },
    },
    {
      method: 'GET',
      path: '/events/keyset',
      handler: (ctx) => keyset(ctx, listEvents, 'events', renderEvent),
    },
    {
      method: 'GET',
      path: /^\/events\/slug\/([^/]+)$/,
      handler: (ctx) => {
        const e = cat.eventBySlug(ctx.params[0] ?? '');
        return e ? send(ctx, 200, renderEvent(e)) : send(ctx, 404, GAMMA_ERRORS.slugNotFound);
      },
    },
    {
      method: 'GET',
      path: /^\/events\/([^/]+)$/,
      handler: (ctx) => byId(ctx, cat, (id) => cat.eventByGammaId(id), renderEvent),
    },
    { method: 'GET', path: '/tags', handler: (ctx) => send(ctx, 200, ALL_TAGS) },
    { method: 'GET', path: '/public-search', handler: (ctx) => search(ctx, pm, renderEvent) },
  ];
}

function byId<T>(
  ctx: Ctx,
  _cat: Catalogue,
  find: (id: string) => T | undefined,
  render: (x: T) => unknown,
): void {
  const id = ctx.params[0] ?? '';
  const found = /^\d{1,12}$/.test(id) ? find(id) : undefined;
  if (!/^\d{1,12}$/.test(id)) send(ctx, 422, GAMMA_ERRORS.idInvalid);
  else if (found) send(ctx, 200, render(found));
  else send(ctx, 404, GAMMA_ERRORS.idNotFound);
}

function addIf<T>(set: Set<T>, value: T | undefined): void {
  if (value !== undefined) set.add(value);
}

export function encodeKeyset(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString('base64url');
}

export function decodeKeyset(cursor: string): number | null {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { offset?: unknown };
    return typeof value.offset === 'number' && Number.isSafeInteger(value.offset) && value.offset >= 0
      ? value.offset
      : null;
  } catch {
    return null;
  }
}

/** /public-search: events whose title or market questions contain every word of `q`. */
function search(ctx: Ctx, pm: PmContext, render: (e: PmEvent) => unknown): void {
  const q = (ctx.query.get('q') ?? '').trim().toLowerCase();
  if (q === '') {
    send(ctx, 422, gammaValidation('q is required'));
    return;
  }
  const perType = intParam(ctx.query, 'limit_per_type');
  const page = intParam(ctx.query, 'page');
  const status = ctx.query.get('events_status');
  if (
    perType === null ||
    page === null ||
    (status !== null && !['active', 'closed', 'all'].includes(status))
  ) {
    send(ctx, 422, gammaValidation('invalid search parameters'));
    return;
  }
  const words = q.split(/\s+/);
  const hits = pm.cat.events.filter((e) => {
    if (status === 'active' && e.prop.status !== 'active') return false;
    if (status === 'closed' && e.prop.status === 'active') return false;
    const text = `${e.phrase.question} ${e.markets.map((m) => m.question).join(' ')}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
  const size = Math.max(1, Math.min(perType ?? 5, 100));
  const from = (Math.max(1, page ?? 1) - 1) * size;
  send(ctx, 200, {
    events: hits.slice(from, from + size).map(render),
    pagination: { hasMore: from + size < hits.length, totalResults: hits.length },
  });
}
