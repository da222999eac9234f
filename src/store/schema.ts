// Row types of every table, as Kysely sees them. Timestamps are ISO 8601 strings on both dialects so rows
// read the same from SQLite and PostgreSQL; booleans are 0/1 integers for the same reason.
import type { ColumnType, Generated } from 'kysely';

export interface ApiKeysTable {
  id: string;
  key_hash: string;
  prefix: string;
  name: string;
  tier: string;
  is_builder: number;
  customer_id: string;
  qps_limit: number | null;
  burst: number | null;
  created_at: string;
  revoked_at: string | null;
}

export interface UsageMonthlyTable {
  key_id: string;
  period: string;
  requests: ColumnType<number, number, number>;
}

export interface SchemaMetaTable {
  name: string;
  value: string;
  updated_at: string;
}

export interface Database {
  api_keys: ApiKeysTable;
  usage_monthly: UsageMonthlyTable;
  schema_meta: SchemaMetaTable;
}

export type AutoId = Generated<number>;
