import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as OTPAuth from 'otpauth';
import { waitFor, historyInstant } from '@coffer/testing';
import {
  parsePrometheusText,
  startCluster,
  startDevServer,
  START_TIMEOUT_MS,
  uniq,
  type ApiClient,
  type ManagedProcess,
} from './support';

jest.setTimeout(120_000);

const REPO = path.resolve(__dirname, '..');
const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/** The TOTP example plugin as an executable in the plugin directory (a launcher of its main). */
function writeLauncher(dir: string, name: string, extra = ''): string {
  const file = path.join(dir, name);
  const main = path.join(REPO, 'apps/plugin-totp/src/main.ts');
  const register = path.join(REPO, 'tools/register.js');
  writeFileSync(file, `#!/bin/sh\n${extra}exec ${process.execPath} -r ${register} ${main} "$@"\n`);
  chmodSync(file, 0o755);
  return file;
}

/**
 * An external plugin that really runs: registered in the catalog, mounted, started by Coffer after
 * its SHA-256 check (stdio in dev mode, its own NATS service in cluster mode), serving Vault's
 * totp API whose codes the independent `otpauth` package accepts; a tampered binary is refused
 * and never runs; a killed plugin answers 503 until it is restarted.
 */
describe.each(['dev', 'cluster'] as const)('%s: the TOTP plugin', (kind) => {
  let dir: string;
  let root: ApiClient;
  let host: ManagedProcess;
  let stop: () => Promise<unknown>;
  const plugin = 'totp-plugin';

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'coffer-plugins-'));
    if (kind === 'dev') {
      const dev = await startDevServer({ COFFER_PLUGIN_DIRECTORY: dir });
      root = dev.client;
      host = dev.process;
      stop = () => dev.stop();
    } else {
      const cluster = await startCluster({ label: 'plugins', pluginDirectory: dir });
      root = cluster.client;
      host = cluster.processes.coreSys;
      stop = () => cluster.stop();
    }
    // The launcher records what it was started with: the catalog's args and env, nothing of the host's.
    const record = `echo "$GREETING $* ${'$'}{HOME:-no-home}" > ${path.join(dir, 'started-with')}\n`;
    const file = writeLauncher(dir, plugin, record);
    const reg = await root.put(`sys/plugins/catalog/secret/${plugin}`, {
      sha256: sha256(file),
      command: plugin,
      args: ['--flag', 'x'],
      env: ['GREETING=hello'],
    });
    expect(reg.status).toBe(204);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await stop?.();
    rmSync(dir, { recursive: true, force: true });
  });

  const ready = () =>
    waitFor(async () => (await root.list('totp/keys')).status !== 503, {
      timeoutMs: 60_000,
      intervalMs: 200,
    });

  it('mounts the plugin from the catalog and serves its routes', async () => {
    expect((await root.post('sys/mounts/totp', { type: plugin })).status).toBe(204);
    const mounts = await root.get('sys/mounts');
    expect(mounts.body.data['totp/']).toMatchObject({ type: plugin, options: null, plugin_version: '' });
    await ready();
    expect((await root.list('totp/keys')).status).toBe(404);
    expect(readFileSync(path.join(dir, 'started-with'), 'utf8').trim()).toBe('hello --flag x no-home');
  });

  it('refuses a plugin_version the catalog does not hold, and a type it does not know', async () => {
    const res = await root.post('sys/mounts/totp-v9', { type: plugin, plugin_version: 'v9.9.9' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toContain('is not in the catalog');
    expect((await root.post('sys/mounts/nope', { type: uniq('unknown') })).status).toBe(400);
  });

  it('refuses a mount of another version than the one already mounted (one process per plugin)', async () => {
    const file = path.join(dir, plugin);
    const reg = await root.put(`sys/plugins/catalog/secret/${plugin}`, {
      sha256: sha256(file),
      command: plugin,
      version: 'v1.0.0',
    });
    expect(reg.status).toBe(204);
    const res = await root.post('sys/mounts/totp-v1', { type: plugin, plugin_version: 'v1.0.0' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      `plugin "${plugin}" is mounted at "totp/" with version ""; every mount of a plugin runs the same version`,
    ]);
    expect((await root.get('sys/mounts')).body.data['totp-v1/']).toBeUndefined();
    expect(
      (await root.delete(`sys/plugins/catalog/secret/${plugin}`, { query: { version: 'v1.0.0' } })).status,
    ).toBe(204);
  });

  it('generates a key whose codes otpauth accepts, and validates otpauth codes once', async () => {
    const created = await root.put('totp/keys/alice', {
      generate: true,
      issuer: 'Coffer',
      account_name: 'alice@example.com',
    });
    expect(created.status).toBe(200);
    // the barcode: a PNG, 200 pixels wide by default (IHDR width at byte 16)
    const png = Buffer.from(created.body.data.barcode as string, 'base64');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(200);
    const noBarcode = await root.put('totp/keys/bob', {
      generate: true,
      issuer: 'Coffer',
      account_name: 'bob@example.com',
      qr_size: 0,
    });
    expect(Object.keys(noBarcode.body.data as object)).toEqual(['url']);
    await root.delete('totp/keys/bob');
    const totp = OTPAuth.URI.parse(created.body.data.url as string) as OTPAuth.TOTP;
    expect(totp.issuer).toBe('Coffer');
    expect(totp.label).toBe('alice@example.com');
    const read = await root.get('totp/keys/alice');
    expect(read.body.data).toEqual({
      account_name: 'alice@example.com',
      algorithm: 'SHA1',
      digits: 6,
      issuer: 'Coffer',
      period: 30,
    });
    const code = (await root.get('totp/code/alice')).body.data.code as string;
    expect(totp.validate({ token: code, window: 1 })).not.toBeNull();
    const mine = totp.generate();
    expect((await root.put('totp/code/alice', { code: mine })).body.data).toEqual({ valid: true });
    const again = await root.put('totp/code/alice', { code: mine });
    expect(again.status).toBe(400);
    expect(again.body.errors).toEqual(['code already used; wait until the next time period']);
    const wrong = String((Number(mine) + 1) % 1_000_000).padStart(6, '0');
    expect((await root.put('totp/code/alice', { code: wrong })).body.data).toEqual({ valid: false });
    expect((await root.list('totp/keys')).body.data.keys).toEqual(['alice']);
  });

  it('imports a key (8 digits, SHA256, 60 s) and its codes match otpauth', async () => {
    const secret = new OTPAuth.Secret({ size: 20 });
    const reference = new OTPAuth.TOTP({ secret, digits: 8, algorithm: 'SHA256', period: 60 });
    const imported = await root.put('totp/keys/bob', {
      key: secret.base32,
      issuer: 'Coffer',
      account_name: 'bob',
      digits: 8,
      algorithm: 'SHA256',
      period: '60s',
    });
    expect(imported.status).toBe(204);
    const code = (await root.get('totp/code/bob')).body.data.code as string;
    expect(code).toHaveLength(8);
    expect(reference.validate({ token: code, window: 1 })).not.toBeNull();
    const url = new OTPAuth.TOTP({ secret, issuer: 'X', label: 'carol' }).toString();
    expect((await root.put('totp/keys/carol', { url })).status).toBe(204);
    expect((await root.get('totp/keys/carol')).body.data).toMatchObject({
      issuer: 'X',
      account_name: 'carol',
    });
  });

  it('answers sys/history/state of the keys and their LIST as the live reads did, never a secret', async () => {
    type Answer = { status: number; data: unknown };
    const answer = (res: { status: number; body: { data?: unknown } }): Answer => ({
      status: res.status,
      data: res.status === 200 ? res.body.data : null,
    });
    const steps: { at: string; answers: Record<string, Answer> }[] = [];
    const record = async () => {
      const answers: Record<string, Answer> = { 'list:totp/keys': answer(await root.list('totp/keys')) };
      for (const name of ['hist-a', 'hist-b'])
        answers[`totp/keys/${name}`] = answer(await root.get(`totp/keys/${name}`));
      steps.push({ at: await historyInstant(), answers });
    };
    const seeds = ['JBSWY3DPEHPK3PXP', 'KRSXG5CTMVRXEZLU'];
    await record(); // before
    expect(
      (await root.put('totp/keys/hist-a', { key: seeds[0], issuer: 'One', account_name: 'a@x' })).status,
    ).toBe(204);
    const generated = await root.put('totp/keys/hist-b', {
      generate: true,
      issuer: 'Two',
      account_name: 'b@x',
    });
    const url = String(generated.body.data.url);
    seeds.push(new URL(url).searchParams.get('secret') ?? 'no-secret', String(generated.body.data.barcode));
    await record(); // created
    expect(
      (await root.put('totp/keys/hist-a', { key: seeds[1], issuer: 'Uno', account_name: 'a@x', digits: 8 }))
        .status,
    ).toBe(204);
    await record(); // updated
    expect((await root.delete('totp/keys/hist-a')).status).toBe(204);
    await record(); // deleted
    expect(
      (await root.put('totp/keys/hist-a', { key: seeds[0], issuer: 'Again', account_name: 'a@x' })).status,
    ).toBe(204);
    await record(); // re-created
    expect(steps[2]?.answers['totp/keys/hist-a']).toMatchObject({ status: 200, data: { digits: 8 } });
    expect(steps[3]?.answers['totp/keys/hist-a']?.status).toBe(404);

    for (const [i, step] of steps.entries()) {
      for (const [key, live] of Object.entries(step.answers)) {
        const list = key.startsWith('list:');
        const path = list ? key.slice(5) : key;
        const res = list
          ? await root.list(`sys/history/state/${path}`, { query: { at: step.at } })
          : await root.get(`sys/history/state/${path}`, { query: { at: step.at } });
        const then = { status: res.status, data: res.status === 200 ? res.body.data.state : null };
        expect({ i, key, then }).toEqual({ i, key, then: live });
        const text = JSON.stringify(res.body);
        for (const seed of seeds) expect(text).not.toContain(seed);
        expect(text).not.toMatch(/otpauth|barcode|"key"/);
      }
    }
    // a code is derived from the secret: no history of it
    const code = await root.get('sys/history/state/totp/code/hist-a', { query: { at: steps[2]?.at ?? '' } });
    expect(code.status).toBe(400);
    for (const name of ['hist-a', 'hist-b'])
      expect((await root.delete(`totp/keys/${name}`)).status).toBe(204);
  });

  it('answers bad input with 4xx and keeps nothing', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['totp/keys/x1', { generate: true, issuer: 'C' }, 'the account_name value is required'],
      ['totp/keys/x2', { generate: true, account_name: 'a' }, 'the issuer value is required'],
      [
        'totp/keys/x3',
        { generate: true, issuer: 'C', account_name: 'a', qr_size: -1 },
        'the qr_size value must be greater than or equal to zero',
      ],
      ['totp/keys/x3', { key: 'AAAA', digits: 7 }, 'the digits value can only be 6 or 8'],
      ['totp/keys/x4', { key: '!!!' }, 'invalid key value'],
      ['totp/keys/x5', {}, 'the key value is required'],
      ['totp/keys/x6', { key: 'AAAA', algorithm: 'MD5' }, 'the algorithm value is not valid'],
      ['totp/code/nobody', { code: '123456' }, 'unknown key: nobody'],
      ['totp/code/alice', {}, 'the code value is required'],
    ];
    for (const [p, body, text] of cases) {
      const res = await root.put(p, body);
      expect(res.status).toBe(400);
      expect(res.body.errors.join('')).toContain(text);
    }
    expect((await root.list('totp/keys')).body.data.keys).toEqual(['alice', 'bob', 'carol']);
    expect((await root.put('totp/keys/dot.', { key: 'AAAA' })).status).toBe(404);
    expect((await root.get('totp/nothing')).status).toBe(404);
    expect((await root.delete('totp/code/alice')).status).toBe(405);
  });

  it('refuses a tampered binary: the mount fails with 400 and the binary never runs', async () => {
    const marker = path.join(dir, 'ran');
    const file = writeLauncher(dir, 'evil-plugin');
    const name = uniq('evil');
    await root.put(`sys/plugins/catalog/secret/${name}`, { sha256: sha256(file), command: 'evil-plugin' });
    writeLauncher(dir, 'evil-plugin', `touch ${marker}\n`);
    const mount = await root.post(`sys/mounts/${name}`, { type: name });
    expect(mount.status).toBe(400);
    expect(mount.body.errors[0]).toContain('checksums did not match');
    expect(existsSync(marker)).toBe(false);
    expect((await root.get('sys/mounts')).body.data[`${name}/`]).toBeUndefined();
  });

  /**
   * The running plugin's process: a child of the process supervising it (its start line may have
   * left the log ring buffer by now).
   */
  const pluginPid = (): number => {
    const children = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(host.pid)], {
      encoding: 'utf8',
    });
    const line = children.split('\n').find((l) => l.includes('apps/plugin-totp/src/main.ts'));
    const pid = Number(line?.trim().split(/\s+/)[0]);
    if (!Number.isInteger(pid) || pid <= 0)
      throw new Error(`no plugin process under ${host.pid}:\n${children}`);
    return pid;
  };

  /** coffer_plugin_restarts_total of the plugin on Vault's sys/metrics (of the process running it). */
  const restarts = async (): Promise<number> => {
    const res = await root.get('sys/metrics?format=prometheus');
    expect(res.status).toBe(200);
    return parsePrometheusText(res.text).value('coffer_plugin_restarts_total', { plugin }) ?? 0;
  };

  it('restarts a killed plugin, counted on sys/metrics; requests meanwhile answer 503 at once', async () => {
    const pid = pluginPid();
    const before = await restarts();
    process.kill(pid, 'SIGKILL');
    await host.waitForLine(new RegExp(`plugin ${plugin} exited`), 10_000);
    const down = await root.get('totp/code/alice');
    expect(down.status).toBe(503);
    expect(down.body.errors[0]).toContain(`plugin-${plugin}`);
    const restarted = new RegExp(`plugin ${plugin} started \\(pid (?!${pid}\\))\\d+\\)`);
    await host.waitForLine(restarted, 30_000);
    await waitFor(async () => (await root.get('totp/code/alice')).status === 200, { timeoutMs: 60_000 });
    expect(await restarts()).toBe(before + 1);
  });

  it('stops the plugin when its mount is disabled', async () => {
    expect((await root.delete('sys/mounts/totp')).status).toBe(204);
    expect((await root.get('totp/code/alice')).status).toBe(404);
  });
});
