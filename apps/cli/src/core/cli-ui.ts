import ora from 'ora';
import pc from 'picocolors';

type Colors = ReturnType<typeof pc.createColors>;

export interface UiStreams {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
}

/** The delay before a spinner shows: quick answers never flash one. */
export const SPINNER_DELAY_MS = 300;

/**
 * Everything the CLI prints goes through here: colours only when the stream is a terminal and
 * NO_COLOR is unset, a spinner on stderr for waits longer than SPINNER_DELAY_MS (terminal only,
 * so pipes and scripts get clean output), and hidden-input prompts.
 */
export class Ui {
  readonly out: Colors;
  readonly err: Colors;

  constructor(
    readonly streams: UiStreams,
    noColor: boolean,
  ) {
    this.out = pc.createColors(!noColor && streams.stdout.isTTY === true);
    this.err = pc.createColors(!noColor && streams.stderr.isTTY === true);
  }

  /** A person at a terminal: both output streams are a TTY (`coffer ... | jq` gets no spinner). */
  get interactive(): boolean {
    return this.streams.stderr.isTTY === true && this.streams.stdout.isTTY === true;
  }

  print(text: string): void {
    this.streams.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
  }

  /** Raw output for -field: no trailing newline when piped, so `$(coffer ... -field=x)` is exact. */
  printRaw(text: string): void {
    this.streams.stdout.write(this.streams.stdout.isTTY === true ? `${text}\n` : text);
  }

  success(text: string): void {
    this.print(this.out.green(text));
  }

  warn(text: string): void {
    this.streams.stderr.write(`${this.err.yellow(text)}\n`);
  }

  error(text: string): void {
    this.streams.stderr.write(`${this.err.red(text)}\n`);
  }

  hint(text: string): void {
    this.streams.stderr.write(`\n${this.err.cyan(`Hint: ${text}`)}\n`);
  }

  /** Runs `work`; if it takes longer than the delay and stderr is a terminal, spins meanwhile. */
  async waitFor<T>(label: string, work: Promise<T>): Promise<T> {
    if (!this.interactive) return work;
    let spinner: ora.Ora | undefined;
    const timer = setTimeout(() => {
      spinner = ora({
        text: label,
        stream: this.streams.stderr,
        isEnabled: true,
        discardStdin: false,
        color: 'cyan',
      }).start();
    }, SPINNER_DELAY_MS);
    try {
      return await work;
    } finally {
      clearTimeout(timer);
      spinner?.stop();
    }
  }

  /** A progress line on a terminal (rewritten in place); nothing on a pipe. */
  progress(text: string): void {
    if (this.interactive) this.streams.stderr.write(`\r\x1b[2K${this.err.dim(text)}`);
  }

  endProgress(): void {
    if (this.interactive) this.streams.stderr.write('\r\x1b[2K');
  }

  /**
   * Reads a line without echoing it (unseal keys, passwords). On a terminal the input is read
   * in raw mode; otherwise one line is read from standard input, so scripts can pipe it in.
   */
  async promptHidden(question: string): Promise<string> {
    const { stdin, stderr } = this.streams;
    stderr.write(question);
    if (stdin.isTTY !== true) {
      const line = await readLine(stdin);
      stderr.write('\n');
      return line;
    }
    return new Promise<string>((resolve, reject) => {
      let value = '';
      stdin.setRawMode(true);
      stdin.resume();
      stdin.setEncoding('utf8');
      const done = (error?: Error) => {
        stdin.removeListener('data', onData);
        stdin.setRawMode(false);
        stdin.pause();
        stderr.write('\n');
        if (error) reject(error);
        else resolve(value);
      };
      const onData = (chunk: string) => {
        for (const ch of chunk) {
          if (ch === '\r' || ch === '\n') return done();
          if (ch === '\u0003') return done(new PromptCancelled());
          if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
          else if (ch >= ' ') value += ch;
        }
        return undefined;
      };
      stdin.on('data', onData);
    });
  }
}

export class PromptCancelled extends Error {
  override name = 'PromptCancelled';
  constructor() {
    super('interrupted');
  }
}

function readLine(stream: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve) => {
    let buffer = '';
    const finish = () => {
      stream.removeListener('data', onData);
      stream.removeListener('end', finish);
      stream.pause();
      resolve(buffer.split(/\r?\n/)[0] ?? '');
    };
    const onData = (chunk: Buffer | string) => {
      buffer += chunk.toString();
      if (buffer.includes('\n')) finish();
    };
    stream.on('data', onData);
    stream.on('end', finish);
    stream.resume();
  });
}
