/**
 * Where the test infrastructure runs. Defaults to the local services; COFFER_TEST_PG_URL and
 * COFFER_TEST_NATS_URL override them (this lib is the one test-side place that reads the env).
 */
const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

/** Connection URL of the test Postgres server, pointing at `database` (default: the admin db). */
export function pgUrl(database?: string): string {
  const url = new URL(process.env['COFFER_TEST_PG_URL'] || DEFAULT_PG_URL);
  if (database !== undefined) url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

export function natsUrl(): string {
  return process.env['COFFER_TEST_NATS_URL'] || DEFAULT_NATS_URL;
}
