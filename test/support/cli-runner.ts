import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The `coffer` executable as package.json's bin names it. */
export const COFFER_BIN = path.resolve(__dirname, '..', '..', 'apps', 'cli', 'bin', 'coffer.js');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  /** merged over the runner's environment (undefined removes a variable) */
  env?: Record<string, string | undefined>;
  /** written to standard input, which is then closed */
  input?: string;
  timeoutMs?: number;
}

export interface CliRunner {
  /** the temporary HOME of every run: the token helper file lives here */
  home: string;
  tokenFile: string;
  run(args: readonly string[], opts?: CliRunOptions): Promise<CliRun>;
  /** run, expect exit code 0, return stdout */
  ok(args: readonly string[], opts?: CliRunOptions): Promise<string>;
  /** run with -format=json, expect 0, return the parsed output */
  json(args: readonly string[], opts?: CliRunOptions): Promise<any>;
  cleanup(): void;
}

/**
 * Runs the real `coffer` binary as a subprocess (node apps/cli/bin/coffer.js), with a temporary
 * HOME and COFFER_ADDR pointing at the server under test, and none of the caller's VAULT_* or
 * COFFER_* variables.
 */
export function cliRunner(address: string, env: Record<string, string> = {}): CliRunner {
  const home = mkdtempSync(path.join(tmpdir(), 'coffer-cli-home-'));
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !/^(COFFER_|VAULT_)/.test(k) && k !== 'NO_COLOR') base[k] = v;
  Object.assign(base, { HOME: home, COFFER_ADDR: address }, env);

  const run = (args: readonly string[], opts: CliRunOptions = {}): Promise<CliRun> =>
    new Promise((resolve, reject) => {
      const childEnv: Record<string, string> = { ...base };
      for (const [k, v] of Object.entries(opts.env ?? {})) {
        if (v === undefined) delete childEnv[k];
        else childEnv[k] = v;
      }
      const child = spawn(process.execPath, [COFFER_BIN, ...args], { env: childEnv, cwd: home });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 90_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code: code ?? -1, stdout, stderr });
      });
      child.stdin.end(opts.input ?? '');
    });

  const ok = async (args: readonly string[], opts?: CliRunOptions): Promise<string> => {
    const res = await run(args, opts);
    if (res.code !== 0)
      throw new Error(
        `coffer ${args.join(' ')} exited ${res.code}\nstdout: ${res.stdout}\nstderr: ${res.stderr}`,
      );
    return res.stdout;
  };

  return {
    home,
    tokenFile: path.join(home, '.coffer-token'),
    run,
    ok,
    json: async (args, opts) => JSON.parse(await ok(['-format=json', ...args], opts)),
    cleanup: () => rmSync(home, { recursive: true, force: true }),
  };
}
