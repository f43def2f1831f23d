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
    const query = spans.find((s) => s.name.startsWith('pg.query'));
    expect(query?.attributes['coffer.service']).toBe('kv');
    // Statement text only: bound parameters and header values never reach span attributes.
    expect(JSON.stringify(spans)).not.toContain(secret);
  }, 30_000);
});
