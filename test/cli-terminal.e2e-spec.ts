import { execFileSync, spawn } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, makeTestCertificates, waitFor } from '@coffer/testing';
import { cliRunner, COFFER_BIN, startDevServer, START_TIMEOUT_MS, uniq, type DevServer } from './support';

jest.setTimeout(180_000);

/** A tmux session running bash, driven with send-keys and read with capture-pane. */
class Terminal {
  readonly name = uniq('coffer-tty');

  constructor(env: Record<string, string>) {
    const args = ['new-session', '-d', '-s', this.name, '-x', '220', '-y', '60'];
    for (const [k, v] of Object.entries(env)) args.push('-e', `${k}=${v}`);
    args.push('bash --norc --noprofile');
    execFileSync('tmux', args);
  }

  type(text: string, enter = true): void {
    execFileSync('tmux', ['send-keys', '-t', this.name, '-l', text]);
    if (enter) execFileSync('tmux', ['send-keys', '-t', this.name, 'Enter']);
  }

  /** the visible pane; with escapes (-e) it keeps colours */
  screen(escapes = false): string {
    return execFileSync(
      'tmux',
      ['capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', this.name, '-S', '-200'],
      {
        encoding: 'utf8',
      },
    );
  }

  async waitFor(pattern: RegExp, timeoutMs = 60_000, escapes = false): Promise<string> {
    return waitFor(
      () => {
        const text = this.screen(escapes);
        return pattern.test(text) ? text : undefined;
      },
      { timeoutMs, intervalMs: 50 },
    );
  }

  clear(): void {
    this.type('clear');
    execFileSync('tmux', ['clear-history', '-t', this.name]);
  }

  kill(): void {
    try {
      execFileSync('tmux', ['kill-session', '-t', this.name]);
    } catch {
      // already gone
    }
  }
}

/**
 * `coffer` at a real terminal (tmux): hidden-input prompts for unseal keys and passwords,
 * colours and the spinner on a TTY and never in a pipe. Also `server -dev` and shell completion.
 */
describe('dev: coffer at a terminal', () => {
  let dev: DevServer;
  let term: Terminal;
  let home: string;
  const coffer = `${process.execPath} ${COFFER_BIN}`;

  beforeAll(async () => {
    // RSA-4096 keys (the spinner test) on a loaded 2-core machine can take longer than the default
    dev = await startDevServer({ COFFER_ENGINE_TIMEOUT: '120s' });
    home = mkdtempSync(path.join(tmpdir(), 'coffer-tty-home-'));
    term = new Terminal({ HOME: home, COFFER_ADDR: dev.baseUrl, TERM: 'xterm-256color', PS1: '$ ' });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    term?.kill();
    await dev?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('operator unseal without an argument prompts for the key and does not echo it', async () => {
    await dev.client.put('sys/seal');
    term.clear();
    term.type(`${coffer} operator unseal; echo "EXIT=$?"`);
    await term.waitFor(/Unseal Key \(will be hidden\):/);
    term.type(dev.unsealKey);
    const screen = await term.waitFor(/EXIT=\d+/);
    expect(screen).toContain('EXIT=0');
    expect(screen).toMatch(/^Sealed\s+false\s*$/m);
    expect(screen).not.toContain(dev.unsealKey);
    await waitFor(async () => (await dev.client.list('secret/metadata')).status !== 503, {
      timeoutMs: 60_000,
    });
  });

  it('login -method=userpass prompts for the password with hidden input and stores the token', async () => {
    await dev.client.post('sys/auth/userpass', { type: 'userpass' });
    await dev.client.post('auth/userpass/users/alice', { password: 'correct-horse', policies: ['default'] });
    term.clear();
    term.type(`${coffer} login -method=userpass username=alice; echo "EXIT=$?"`);
    await term.waitFor(/Password \(will be hidden\):/);
    term.type('correct-horse');
    const screen = await term.waitFor(/EXIT=\d+/);
    expect(screen).toContain('EXIT=0');
    expect(screen).toContain('Success! You are now authenticated.');
    expect(screen).not.toContain('correct-horse');
    const token = readFileSync(path.join(home, '.coffer-token'), 'utf8');
    expect((await dev.client.post('auth/token/lookup', { token })).body.data.meta).toEqual({
      username: 'alice',
    });
  });

  it('colours on a TTY, none in a pipe or with NO_COLOR', async () => {
    const run = `${coffer} policy write p${Date.now()} -`;
    const policy = 'path \\"a/*\\" { capabilities = [\\"read\\"] }';
    term.clear();
    term.type(`echo "${policy}" | COFFER_TOKEN=${dev.rootToken} ${run}; echo "EXIT=$?"`);
    const tty = await term.waitFor(/EXIT=\d+/, 60_000, true);
    expect(tty).toContain('\u001b[32mSuccess! Uploaded policy');

    term.clear();
    term.type(`echo "${policy}" | COFFER_TOKEN=${dev.rootToken} ${run} | cat; echo "EXIT=$?"`);
    const piped = await term.waitFor(/EXIT=\d+/, 60_000, true);
    expect(piped).toContain('Success! Uploaded policy');
    expect(piped).not.toContain('\u001b[32m');

    term.clear();
    term.type(`echo "${policy}" | NO_COLOR=1 COFFER_TOKEN=${dev.rootToken} ${run}; echo "EXIT=$?"`);
    const noColor = await term.waitFor(/EXIT=\d+/, 60_000, true);
    expect(noColor).toContain('Success! Uploaded policy');
    expect(noColor).not.toContain('\u001b[32m');

    term.clear();
    term.type(`${coffer} read -address=http://127.0.0.1:1 sys/mounts; echo "EXIT=$?"`);
    const error = await term.waitFor(/EXIT=\d+/, 60_000, true);
    expect(error).toContain('EXIT=2');
    expect(error).toContain('\u001b[31mError reading sys/mounts');
  });

  it('shows a spinner while a slow request runs on a TTY, and none in a pipe', async () => {
    await dev.client.post('pki/root/generate/internal', { common_name: 'tty.test', ttl: '24h' });
    await dev.client.post('pki/roles/slow', {
      allowed_domains: 'tty.test',
      allow_subdomains: true,
      key_type: 'rsa',
      key_bits: 4096,
    });
    const issue = `COFFER_TOKEN=${dev.rootToken} ${coffer} pki issue slow common_name=a.tty.test ttl=1h`;
    term.clear();
    term.type(`${issue} > /dev/null; echo "EXIT=$?"`);
    // output redirected: not a person watching, so no spinner even though stderr is the TTY
    const quiet = await term.waitFor(/EXIT=\d+/, 120_000);
    expect(quiet).not.toMatch(/POST pki\/issue\/slow/);

    // a replica keeps a ready key of each RSA size asked for: take it, so the next issue waits
    // for a key being made (slow enough for the spinner)
    const drained = await dev.client.post('pki/issue/slow', { common_name: 'b.tty.test', ttl: '1h' });
    expect(drained.status).toBe(200);
    term.clear();
    term.type(`${issue} -field=serial_number; code=$?; echo; echo "EXIT=$code"`);
    const spinning = await term.waitFor(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] POST pki\/issue\/slow/, 120_000);
    expect(spinning).toMatch(/POST pki\/issue\/slow/);
    const done = await term.waitFor(/EXIT=\d+/, 120_000);
    expect(done).toContain('EXIT=0');
    expect(done).not.toMatch(/POST pki\/issue\/slow/); // the spinner clears itself
    expect(done).toMatch(/^[0-9a-f]{2}(:[0-9a-f]{2})+$/m);

    term.clear();
    term.type(`${issue} -field=serial_number | cat; code=$?; echo; echo "EXIT=$code"`);
    let sawSpinner = false;
    await waitFor(
      () => {
        const text = term.screen();
        if (/POST pki\/issue\/slow/.test(text)) sawSpinner = true;
        return /EXIT=\d+/.test(text);
      },
      { timeoutMs: 120_000, intervalMs: 50 },
    );
    expect(sawSpinner).toBe(false);
  });

  it('server -dev starts the dev server, as npm start does', async () => {
    const [apiPort, opsPort] = await Promise.all([freePort(), freePort()]);
    const child = spawn(
      process.execPath,
      [
        COFFER_BIN,
        'server',
        '-dev',
        `-dev-listen-address=127.0.0.1:${apiPort}`,
        '-dev-root-token-id=cli-root',
      ],
      { env: { ...process.env, COFFER_OPS_LISTEN_ADDRESS: `127.0.0.1:${opsPort}`, HOME: home } },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    try {
      await waitFor(() => /^Root Token: cli-root$/m.test(out), { timeoutMs: 120_000 });
      const cli = cliRunner(`http://127.0.0.1:${apiPort}`);
      try {
        const status = await cli.json(['status']);
        expect(status).toMatchObject({ sealed: false, initialized: true });
        expect(
          (await cli.json(['token', 'lookup'], { env: { COFFER_TOKEN: 'cli-root' } })).data.policies,
        ).toEqual(['root']);
      } finally {
        cli.cleanup();
      }
    } finally {
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    }
  });

  it('completion: bash completes commands and flags; -autocomplete-install sources it from the rc files', async () => {
    const complete = (words: string[]) =>
      execFileSync(
        'bash',
        [
          '-c',
          `source <(${coffer} completion bash); COMP_WORDS=(${words.join(' ')}); COMP_CWORD=${words.length - 1}; _coffer; echo "\${COMPREPLY[@]}"`,
        ],
        { encoding: 'utf8', env: { ...process.env, HOME: home } },
      ).trim();
    expect(complete(['coffer', 'kv', 'met'])).toBe('metadata');
    expect(complete(['coffer', 'kv', 'metadata', 'r'])).toBe('');
    expect(complete(['coffer', 'op'])).toBe('operator');
    expect(complete(['coffer', 'operator', 'generate-root', '-de'])).toBe('-decode');
    expect(complete(['coffer', 'kv', 'get', '-m'])).toBe('-mount');
    const zsh = execFileSync(process.execPath, [COFFER_BIN, 'completion', 'zsh'], { encoding: 'utf8' });
    expect(zsh).toContain('bashcompinit');

    const cli = cliRunner(dev.baseUrl);
    try {
      await cli.ok(['-autocomplete-install']);
      await cli.ok(['-autocomplete-install']);
      const bashrc = readFileSync(path.join(cli.home, '.bashrc'), 'utf8');
      expect(bashrc.match(/source <\(coffer completion bash\)/g)).toHaveLength(1);
      expect(readFileSync(path.join(cli.home, '.zshrc'), 'utf8')).toContain(
        'source <(coffer completion zsh)',
      );
    } finally {
      cli.cleanup();
    }
  });

  it('TLS: -ca-cert trusts a private CA, -tls-skip-verify skips the check, neither fails with exit 2', async () => {
    const { cert, key, caFile } = makeTestCertificates(home);
    const target = new URL(dev.baseUrl);
    // an HTTPS front for the dev server, as a TLS listener or load balancer would be
    const proxy = https.createServer({ cert, key }, (req, res) => {
      const upstream = http.request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    const port = await freePort();
    await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
    const cli = cliRunner(`https://127.0.0.1:${port}`);
    try {
      const untrusted = await cli.run(['status']);
      expect(untrusted.code).toBe(2);
      expect(untrusted.stderr).toMatch(/certificate/i);
      expect((await cli.json(['status', `-ca-cert=${caFile}`])).sealed).toBe(false);
      expect((await cli.json(['status'], { env: { COFFER_CACERT: caFile } })).sealed).toBe(false);
      expect((await cli.json(['status', '-tls-skip-verify'])).sealed).toBe(false);
      expect((await cli.json(['status'], { env: { VAULT_SKIP_VERIFY: 'true' } })).sealed).toBe(false);
      expect((await cli.run(['status', '-ca-cert=/nonexistent.pem'])).code).toBe(1);
    } finally {
      cli.cleanup();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
