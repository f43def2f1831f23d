import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

/** The repository root: every app is started from here so `-r ./tools/register.js` resolves. */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

export interface StartOptions {
  /** short label used in prefixed output and error messages, e.g. "kv-2" */
  name: string;
  /** the executable, e.g. process.execPath */
  cmd: string;
  args?: string[];
  /** default: the repository root */
  cwd?: string;
  /** merged over the parent's environment */
  env?: Record<string, string | undefined>;
  /** receives every output line (stdout and stderr), without the trailing newline */
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
}

export interface LaunchOptions extends Omit<StartOptions, 'cmd' | 'cwd'> {
  /** TypeScript entry point relative to the repository root, e.g. "apps/kv/src/main.ts" */
  entry: string;
  /** extra node flags, e.g. ["--cpu-prof"] */
  nodeArgs?: string[];
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const RECENT_LINES = 400;
const live = new Set<ChildProcess>();

// A test runner or tool that dies must not leave servers behind holding ports and NATS
// subscriptions: kill what is still running when this process exits.
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/**
 * A child process of a test, tool or benchmark: its output kept and matched line by line, killed
 * when this process exits. `launch` starts a TypeScript app as `node -r ./tools/register.js <entry>`.
 */
export class ManagedProcess {
  readonly exited: Promise<ExitInfo>;
  private readonly recent: string[] = [];
  private readonly waiters = new Set<{ test: (line: string) => boolean; resolve: (line: string) => void }>();
  private exitInfo: ExitInfo | undefined;

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    onLine: StartOptions['onLine'],
  ) {
    live.add(child);
    const handle = (stream: 'stdout' | 'stderr') => (line: string) => {
      this.recent.push(line);
      if (this.recent.length > RECENT_LINES) this.recent.shift();
      onLine?.(line, stream);
      for (const waiter of this.waiters) {
        if (!waiter.test(line)) continue;
        this.waiters.delete(waiter);
        waiter.resolve(line);
      }
    };
    if (child.stdout) createInterface({ input: child.stdout }).on('line', handle('stdout'));
    if (child.stderr) createInterface({ input: child.stderr }).on('line', handle('stderr'));
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        live.delete(child);
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
    });
  }

  static start(opts: StartOptions): ManagedProcess {
    const child = spawn(opts.cmd, opts.args ?? [], {
      cwd: opts.cwd ?? REPO_ROOT,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new ManagedProcess(opts.name, child, opts.onLine);
  }

  static launch(opts: LaunchOptions): ManagedProcess {
    const { entry, nodeArgs = [], args = [], ...rest } = opts;
    return ManagedProcess.start({
      ...rest,
      cmd: process.execPath,
      args: [...nodeArgs, '-r', './tools/register.js', entry, ...args],
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exitInfo === undefined;
  }

  /** The last few hundred output lines, for failure messages. */
  output(): string {
    return this.recent.join('\n');
  }

  /**
   * Resolves with the first output line (past or future) matching `pattern`; rejects when the
   * process exits first or the deadline passes, with the process output in the message.
   */
  waitForLine(pattern: RegExp, timeoutMs = 30_000): Promise<string> {
    const seen = this.recent.find((line) => pattern.test(line));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise<string>((resolve, reject) => {
      const waiter = {
        test: (line: string) => pattern.test(line),
        resolve: (line: string) => {
          clearTimeout(timer);
          resolve(line);
        },
      };
      const fail = (why: string) => {
        this.waiters.delete(waiter);
        clearTimeout(timer);
        reject(new Error(`${this.name}: ${why} while waiting for ${String(pattern)}\n${this.output()}`));
      };
      const timer = setTimeout(() => fail(`no match within ${timeoutMs} ms`), timeoutMs);
      this.waiters.add(waiter);
      void this.exited.then((info) => {
        if (this.waiters.has(waiter)) fail(`exited (code ${info.code}, signal ${info.signal})`);
      });
    });
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.running) this.child.kill(signal);
  }

  /** SIGTERM, then SIGKILL if the process has not exited within `graceMs`. */
  async stop(graceMs = 10_000): Promise<ExitInfo> {
    if (!this.running && this.exitInfo) return this.exitInfo;
    this.kill('SIGTERM');
    const timer = setTimeout(() => this.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
