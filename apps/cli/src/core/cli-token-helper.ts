import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CliLocalError } from './cli-errors';

/**
 * Vault's default token helper: one file in the home directory holding the last login's token,
 * readable by its owner only.
 */
export class TokenHelper {
  readonly file: string;

  constructor(home: string) {
    this.file = path.join(home, '.coffer-token');
  }

  get(): string | undefined {
    try {
      const token = readFileSync(this.file, 'utf8').trim();
      return token === '' ? undefined : token;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new CliLocalError(`error reading token helper ${this.file}: ${(e as Error).message}`);
    }
  }

  store(token: string): void {
    try {
      writeFileSync(this.file, token, { mode: 0o600 });
      chmodSync(this.file, 0o600);
    } catch (e) {
      throw new CliLocalError(`error storing token in ${this.file}: ${(e as Error).message}`);
    }
  }

  erase(): void {
    rmSync(this.file, { force: true });
  }
}
