import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(__dirname, '..', '..', '..');

interface ProbeSpan {
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

describe('instrumentations in a real process', () => {
  it('patches http and pg imported before startTelemetry, without recording values', async () => {
    const secret = `s3cr3t-${process.pid}`;
    const { stdout } = await run(
      process.execPath,
      ['-r', './tools/register.js', 'libs/telemetry/test/instrumentation-probe.ts', secret],
      { cwd: root, timeout: 20_000 },
    );
    const spans = JSON.parse(stdout) as ProbeSpan[];
    const names = spans.map((s) => s.name);

    expect(names).toEqual(expect.arrayContaining(['pg.query:SELECT postgres', 'GET']));
    const queries = spans.filter((s) => s.name.startsWith('pg.query'));
    // the query outside any request ("select 1") is not traced
    expect(queries).toHaveLength(1);
    expect(queries[0]?.attributes['coffer.service']).toBe('kv');
    const server = spans.find((s) => s.name === 'GET' && s.kind === 1);
    const client = spans.find((s) => s.name === 'GET' && s.kind === 2);
    expect(server?.attributes['http.target']).toBe('/probe');
    expect(client?.attributes['http.url']).toBe(
      `http://127.0.0.1:${String(client?.attributes['net.peer.port'])}/probe`,
    );
    // Statement text only: bound parameters, header values, query strings and connection
    // string parameters never reach span attributes.
    expect(JSON.stringify(spans)).not.toContain(secret);
  }, 30_000);
});
