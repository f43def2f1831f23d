import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

/**
 * Helpers for the specs that drive published Vault client libraries, unchanged, against Coffer
 * (test/clients/*.e2e-spec.ts).
 */

/** Debian's python3-hvac installs into the system interpreter, not into a pyenv or venv one. */
export const SYSTEM_PYTHON = '/usr/bin/python3';

const HVAC_DRIVER = path.resolve(__dirname, '..', 'clients', 'hvac_driver.py');

/** What an hvac call raised: the exception class (InvalidRequest, Forbidden, InvalidPath...) and text. */
export interface HvacError {
  type: string;
  message: string;
}

/** Thrown by HvacDriver.call when hvac raised; `.hvac` says what. */
export class HvacCallError extends Error {
  constructor(
    readonly call: string,
    readonly hvac: HvacError,
  ) {
    super(`hvac ${call}: ${hvac.type}: ${hvac.message}`);
    this.name = 'HvacCallError';
  }
}

export interface HvacCall {
  args?: unknown[];
  kwargs?: Record<string, unknown>;
  /** another token for this call only (default: the one the driver started with) */
  token?: string;
}

interface Pending {
  call: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * One long-lived Python process running test/clients/hvac_driver.py: each call is a method of
 * hvac.Client by attribute path (`secrets.kv.v2.read_secret_version`), answered with what hvac
 * returned (a dict, or `{status_code, text}` for a bare response) or rejected with HvacCallError.
 * Calls are answered in order, one at a time, as one hvac.Client would make them.
 */
export class HvacDriver {
  private readonly pending = new Map<number, Pending>();
  private readonly stderr: string[] = [];
  private nextId = 1;
  private exited = false;

  private constructor(private readonly child: ChildProcess) {
    if (!child.stdout || !child.stderr) throw new Error('hvac driver without pipes');
    createInterface({ input: child.stdout }).on('line', (line) => this.answer(line));
    createInterface({ input: child.stderr }).on('line', (line) => {
      this.stderr.push(line);
      if (this.stderr.length > 50) this.stderr.shift();
    });
    child.once('exit', (code, signal) => {
      this.exited = true;
      const why = new Error(`hvac driver exited (${code ?? signal}):\n${this.stderr.join('\n')}`);
      for (const p of this.pending.values()) p.reject(why);
      this.pending.clear();
    });
  }

  static start(vaultAddr: string, token: string): HvacDriver {
    const child = spawn(SYSTEM_PYTHON, [HVAC_DRIVER], {
      env: { ...process.env, VAULT_ADDR: vaultAddr, VAULT_TOKEN: token, PYTHONUNBUFFERED: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return new HvacDriver(child);
  }

  call<T = any>(call: string, opts: HvacCall = {}): Promise<T> {
    if (this.exited) return Promise.reject(new Error(`hvac driver has exited:\n${this.stderr.join('\n')}`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { call, resolve: resolve as (value: unknown) => void, reject });
      this.child.stdin?.write(
        `${JSON.stringify({ id, call, args: opts.args ?? [], kwargs: opts.kwargs ?? {}, token: opts.token })}\n`,
      );
    });
  }

  /** The HvacError a call raised (fails when the call succeeds). */
  async failure(call: string, opts: HvacCall = {}): Promise<HvacError> {
    try {
      await this.call(call, opts);
    } catch (error) {
      if (error instanceof HvacCallError) return error.hvac;
      throw error;
    }
    throw new Error(`hvac ${call} succeeded, expected it to raise`);
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin?.end();
    await exited;
  }

  private answer(line: string): void {
    const message = JSON.parse(line) as { id: number; result?: unknown; error?: HvacError };
    const p = this.pending.get(message.id);
    if (!p) return;
    this.pending.delete(message.id);
    if (message.error) p.reject(new HvacCallError(p.call, message.error));
    else p.resolve(message.result);
  }
}
