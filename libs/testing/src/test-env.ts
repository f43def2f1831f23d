/**
 * Where the test infrastructure runs: COFFER_TEST_DATABASE_URL (or the older COFFER_TEST_PG_URL)
 * and COFFER_TEST_NATS_URL, set by jest's global set-up (test-infra.ts) to the servers it found or
 * started; the local services otherwise. This lib is the one test-side place that reads the env.
 */
export const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

export const TEST_ENV = {
  databaseUrl: 'COFFER_TEST_DATABASE_URL',
  legacyDatabaseUrl: 'COFFER_TEST_PG_URL',
  natsUrl: 'COFFER_TEST_NATS_URL',
  /** set once the global set-up checked both (the int and e2e projects each run it) */
  ready: 'COFFER_TEST_INFRA_READY',
} as const;

/** Connection URL of the test Postgres server, pointing at `database` (default: the admin db). */
export function pgUrl(database?: string): string {
  const url = new URL(
    process.env[TEST_ENV.databaseUrl] || process.env[TEST_ENV.legacyDatabaseUrl] || DEFAULT_PG_URL,
  );
  if (database !== undefined) url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

export function natsUrl(): string {
  return process.env[TEST_ENV.natsUrl] || DEFAULT_NATS_URL;
}
