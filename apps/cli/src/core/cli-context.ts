import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { CliConfig } from '../cli.config';
import { parseKeyValues } from './cli-args';
import { CliLocalError, CliUsageError } from './cli-errors';
import {
  formatStructured,
  formatWarnings,
  isObject,
  keyValueTable,
  listTable,
  rawField,
  secretRows,
  selectField,
  type JsonObject,
  type OutputFormat,
} from './cli-format';
import { CofferHttp } from './cli-http';
import { TokenHelper } from './cli-token-helper';
import type { Ui } from './cli-ui';

/** The global flags, as commander hands them over (see registerGlobalOptions). */
export interface GlobalFlags {
  address?: string;
  namespace?: string;
  format?: string;
  field?: string;
  wrapTtl?: string;
  policyOverride?: boolean;
  caCert?: string;
  tlsSkipVerify?: boolean;
  outputCurlString?: boolean;
}

export function registerGlobalOptions(program: Command): void {
  program
    .option('--address <url>', 'address of the server (COFFER_ADDR, VAULT_ADDR)')
    .option('--namespace <ns>', 'namespace to send requests to (COFFER_NAMESPACE)')
    .option('--ns <ns>', 'alias of -namespace')
    .option('--format <format>', 'output format: table, json or yaml (COFFER_FORMAT)')
    .option('--field <name>', 'print only this field, raw, with no trailing newline when piped')
    .option('--wrap-ttl <duration>', 'wrap the response in a cubbyhole token with this TTL (COFFER_WRAP_TTL)')
    .option('--policy-override', 'override soft-mandatory policy failures')
    .option('--ca-cert <file>', 'PEM CA bundle to verify the server certificate (COFFER_CACERT)')
    .option('--tls-skip-verify', 'do not verify the server certificate (COFFER_SKIP_VERIFY)')
    .option('--output-curl-string', 'print the equivalent curl command instead of sending the request');
}

/**
 * What every command works with: the HTTP client built from flags and environment, the token
 * helper, the UI, and Vault's output conventions (table, json, yaml, -field).
 */
export class CliContext {
  readonly tokenHelper: TokenHelper;
  private client: CofferHttp | undefined;

  constructor(
    readonly config: CliConfig,
    readonly flags: GlobalFlags & { ns?: string },
    readonly ui: Ui,
  ) {
    this.tokenHelper = new TokenHelper(config.home);
  }

  get format(): OutputFormat {
    const format = (this.flags.format ?? this.config.format ?? 'table').toLowerCase();
    if (format !== 'table' && format !== 'json' && format !== 'yaml')
      throw new CliUsageError(`invalid output format "${format}": use table, json or yaml`);
    return format;
  }

  get structured(): boolean {
    return this.format !== 'table';
  }

  /** The token: COFFER_TOKEN / VAULT_TOKEN, else the token helper. */
  token(): string | undefined {
    return this.config.token ?? this.tokenHelper.get();
  }

  get http(): CofferHttp {
    if (this.client) return this.client;
    let ca: string | undefined;
    const caFile = this.flags.caCert ?? this.config.caCert;
    if (caFile !== undefined) {
      try {
        ca = readFileSync(caFile, 'utf8');
      } catch (e) {
        throw new CliLocalError(`error reading CA certificate ${caFile}: ${(e as Error).message}`);
      }
    }
    this.client = new CofferHttp(
      {
        address: this.flags.address ?? this.config.address,
        token: this.token(),
        namespace: this.flags.namespace ?? this.flags.ns ?? this.config.namespace,
        wrapTtl: this.flags.wrapTtl ?? this.config.wrapTtl,
        policyOverride: this.flags.policyOverride === true,
        ca,
        tlsSkipVerify: this.flags.tlsSkipVerify === true || this.config.tlsSkipVerify,
        outputCurlString: this.flags.outputCurlString === true,
      },
      (label, work) => this.ui.waitFor(label, work),
    );
    return this.client;
  }

  keyValues(args: readonly string[]): Record<string, unknown> {
    return parseKeyValues(args, {
      readFile: (file) => readFileSync(file, 'utf8'),
      readStdin: () => readFileSync(0, 'utf8'),
    });
  }

  readInput(file: string): string {
    try {
      return readFileSync(file === '-' ? 0 : file, 'utf8');
    } catch (e) {
      throw new CliLocalError(
        `error reading ${file === '-' ? 'standard input' : file}: ${(e as Error).message}`,
      );
    }
  }

  /**
   * Prints an API body the Vault way: -field picks one value, json/yaml print the body as the
   * server sent it, table prints `table()` (default: the secret key/value table).
   */
  output(body: JsonObject | undefined, table?: (body: JsonObject) => string, data?: unknown): void {
    const value = body ?? {};
    if (this.flags.field !== undefined) {
      const picked = selectField(value, this.flags.field, data ?? value.data);
      if (picked === undefined) throw new CliLocalError(`Field "${this.flags.field}" not present in secret`);
      this.ui.printRaw(rawField(picked));
      return;
    }
    if (this.format !== 'table') {
      this.ui.print(formatStructured(value, this.format));
      return;
    }
    const warnings = Array.isArray(value.warnings) ? value.warnings.map(String) : [];
    const text = table ? table(value) : secretTable(value, data);
    this.ui.print(`${formatWarnings(warnings)}${text}`);
  }

  /** A list answer: keys as Vault's CLI prints them (json/yaml: the keys array, as Vault does). */
  outputList(body: JsonObject | undefined, header = 'Keys'): void {
    const data = body?.data;
    const keys = isObject(data) && Array.isArray(data.keys) ? data.keys.map(String) : [];
    if (this.flags.field !== undefined) {
      this.output(body);
      return;
    }
    if (this.format !== 'table') {
      this.ui.print(formatStructured(keys, this.format));
      return;
    }
    this.ui.print(listTable(keys, header));
  }
}

export function secretTable(body: JsonObject, data?: unknown): string {
  const rows = secretRows(body, data ?? body.data);
  return rows.length === 0 ? '' : keyValueTable(rows);
}
