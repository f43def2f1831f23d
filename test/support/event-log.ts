import { Client } from 'pg';

/**
 * How many events of `type` a service has logged in a cluster's database (event types are in
 * clear; their data is not): lets a test wait for a service to have recorded a step.
 */
export async function eventCount(databaseUrl: string, schema: string, type: string): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const table = `"${schema.replace(/"/g, '""')}".event_log`;
    const { rows } = await client.query<{ n: number }>(
      `select count(*)::int as n from ${table} where type = $1`,
      [type],
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}
