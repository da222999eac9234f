// Where the test suite finds PostgreSQL and Redis. They are required: a missing service fails the test with a
// message saying how to provide it, rather than letting the suite pass without having exercised it.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

/**
 * Creates a throwaway schema; returns it, the DATABASE_URL whose sessions use it (libpq-style `options` in the URL,
 * which pg passes to the server as a startup parameter: how a server process is pointed at it) and a function that
 * drops it.
 */
export async function createPgSchema(): Promise<{ schema: string; url: string; drop: () => Promise<void> }> {
  const schema = uniqueName('t');
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is required by this test and is not reachable at ${TEST_DATABASE_URL} ` +
        `(${(error as Error).message}). Start it or point TEST_DATABASE_URL at one.`,
    );
  }
  await client.query(`create schema ${schema}`);
  await client.end();
  return {
    schema,
    url: `${TEST_DATABASE_URL}${TEST_DATABASE_URL.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}`,
    async drop() {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
}

/** Every key matching `pattern` (SCAN, so a shared Redis is not blocked). */
export async function scanRedisKeys(redis: Redis, pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    found.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return found;
}

/** Deletes a test run's keys (`<prefix>:*`) and closes the connection. */
export async function dropRedisPrefix(redis: Redis, prefix: string): Promise<void> {
  const found = await scanRedisKeys(redis, `${prefix}:*`);
  if (found.length > 0) await redis.del(...found);
  await redis.quit();
}

/** Connects to the test Redis or fails with a message saying how to provide one. */
export async function connectRedis(): Promise<Redis> {
  const redis = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 3_000,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new Error(
      `Redis is required by this test and is not reachable at ${TEST_REDIS_URL} ` +
        `(${(error as Error).message}). Start it or point TEST_REDIS_URL at one.`,
    );
  }
  return redis;
}
