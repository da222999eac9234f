// The ordered list of migrations. Each one must run on SQLite and PostgreSQL alike (the store suite checks both).
import type { Migration } from 'kysely';
import * as foundation from './0001-foundation.js';
import * as catalogue from './0002-catalogue.js';
import * as bookSnapshots from './0003-book-snapshots.js';
import * as credentials from './0004-credentials.js';
import * as orders from './0005-orders.js';
import * as matching from './0006-matching.js';
import * as builder from './0007-builder.js';
import * as searchTiers from './0008-search-tiers.js';
import * as feeSettlement from './0009-fee-settlement.js';
import * as noInheritedAdmin from './0010-no-inherited-admin.js';
import * as linkPolarity from './0011-link-polarity.js';
import * as routeOrders from './0012-route-orders.js';
import * as linkResolutionCheck from './0013-link-resolution-check.js';
import * as mcpTrading from './0015-mcp-trading.js';
import * as recordedTrades from './0018-recorded-trades.js';
import * as activeSearch from './0024-active-search.js';
import * as activeCount from './0026-active-count.js';
import * as catalogueVersion from './0027-catalogue-version.js';
import * as statusSearch from './0028-status-search.js';

export const MIGRATIONS: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-catalogue': catalogue,
  '0003-book-snapshots': bookSnapshots,
  '0004-credentials': credentials,
  '0005-orders': orders,
  '0006-matching': matching,
  '0007-builder': builder,
  '0008-search-tiers': searchTiers,
  '0009-fee-settlement': feeSettlement,
  '0010-no-inherited-admin': noInheritedAdmin,
  '0011-link-polarity': linkPolarity,
  '0012-route-orders': routeOrders,
  '0013-link-resolution-check': linkResolutionCheck,
  '0015-mcp-trading': mcpTrading,
  '0018-recorded-trades': recordedTrades,
  '0024-active-search': activeSearch,
  '0026-active-count': activeCount,
  '0027-catalogue-version': catalogueVersion,
  '0028-status-search': statusSearch,
};
