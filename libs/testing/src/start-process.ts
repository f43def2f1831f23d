import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface StartProcessOptions {
  cmd: string;
  args?: string[];
  /** added to the parent's environment (values `undefined` remove a variable) */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** resolves start once a stdout or stderr line matches; without it, start resolves at once */
  readyLine?: RegExp;
  /** for readyLine; default 30 000 */
  timeoutMs?: number;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningProcess {
  pid: number;
  /** stdout lines so far */
  stdout: string[];
  stderr: string[];
  /** stdout and stderr lines so far, in arrival order */
  lines: string[];
  /**
   * Resolves with the first line (stdout or stderr) matching `re`, scanning from line index
   * `since` (default 0: lines already seen count too).
   */
  waitForLine(re: RegExp, opts?: { timeoutMs?: number; since?: number }): Promise<string>;
  /** sends `signal` (default SIGTERM) to the process group; SIGKILL after `graceMs` (default 5000) */
  kill(signal?: NodeJS.Signals, graceMs?: number): Promise<ProcessExit>;
  exited: Promise<ProcessExit>;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Never leave apps running after the test process ends, even when a test forgot to kill them. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of running) signalGroup(child, 'SIGKILL');
  });
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/**
 * Launches a process for an end-to-end test (its own process group, so `kill` also stops the
 * children it spawned) and collects its output line by line.
 */
export async function startProcess(opts: StartProcessOptions): Promise<RunningProcess> {
  installExitHook();
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const child = spawn(opts.cmd, opts.args ?? [], {
    cwd: opts.cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);

  const stdout: string[] = [];
  const stderr: string[] = [];
  const lines: string[] = [];
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((l) => l());
  const collect = (stream: NodeJS.ReadableStream, into: string[]) => {
    createInterface({ input: stream }).on('line', (line) => {
      into.push(line);
      lines.push(line);
      notify();
    });
  };
  if (child.stdout) collect(child.stdout, stdout);
  if (child.stderr) collect(child.stderr, stderr);

  let exitInfo: ProcessExit | undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      exitInfo = { code, signal };
      resolve(exitInfo);
      notify();
    });
    child.once('error', (error) => {
      running.delete(child);
      exitInfo = { code: null, signal: null };
      lines.push(`[startProcess] ${error.message}`);
      resolve(exitInfo);
      notify();
    });
  });

  const describe = () => `${opts.cmd} ${(opts.args ?? []).join(' ')}`.trim();
  const tail = () => lines.slice(-40).join('\n');

  const waitForLine = (re: RegExp, o: { timeoutMs?: number; since?: number } = {}): Promise<string> =>
    new Promise((resolve, reject) => {
      const timeoutMs = o.timeoutMs ?? 30_000;
      let index = o.since ?? 0;
      const done = (fn: () => void) => {
        clearTimeout(timer);
        listeners.delete(check);
        fn();
      };
      const check = () => {
        for (; index < lines.length; index++) {
          const line = lines[index] ?? '';
          if (re.test(line)) return done(() => resolve(line));
        }
        if (exitInfo) {
          const info = exitInfo;
          done(() =>
            reject(
              new Error(
                `${describe()} exited (code ${info.code}, signal ${info.signal}) before printing ${re}:\n${tail()}`,
              ),
            ),
          );
        }
      };
      const timer = setTimeout(
        () =>
          done(() =>
            reject(new Error(`${describe()} did not print ${re} within ${timeoutMs} ms:\n${tail()}`)),
          ),
        timeoutMs,
      );
      listeners.add(check);
      check();
    });

  const kill = async (signal: NodeJS.Signals = 'SIGTERM', graceMs = 5000): Promise<ProcessExit> => {
    if (exitInfo) return exitInfo;
    signalGroup(child, signal);
    const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  };

  const proc: RunningProcess = { pid: child.pid ?? -1, stdout, stderr, lines, waitForLine, kill, exited };
  if (opts.readyLine) {
    try {
      await waitForLine(opts.readyLine, { timeoutMs: opts.timeoutMs ?? 30_000 });
    } catch (error) {
      await kill('SIGKILL');
      throw error;
    }
  }
  return proc;
}
