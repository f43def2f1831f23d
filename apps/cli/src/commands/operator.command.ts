import type { Command } from 'commander';
import { action, activity, expectArgs, type CliDeps } from '../core/cli-command';
import type { CliContext } from '../core/cli-context';
import { CliUsageError, EXIT_REMOTE } from '../core/cli-errors';
import { formatValue, headedTable, isObject, keyValueTable, type JsonObject } from '../core/cli-format';

const intOption = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new CliUsageError(`invalid number "${v}"`);
  return n;
};

/** Vault's `status` view of sys/seal-status. */
export function sealStatusTable(s: JsonObject): string {
  const rows: [string, unknown][] = [
    ['Seal Type', s.type ?? 'shamir'],
    ['Initialized', s.initialized],
    ['Sealed', s.sealed],
    ['Total Shares', s.n],
    ['Threshold', s.t],
  ];
  if (s.sealed === true) {
    rows.push(['Unseal Progress', `${formatValue(s.progress)}/${formatValue(s.t)}`]);
    rows.push(['Unseal Nonce', s.nonce || 'n/a']);
  }
  rows.push(['Version', s.version ?? 'n/a']);
  if (s.build_date !== undefined) rows.push(['Build Date', s.build_date]);
  rows.push(['Storage Type', s.storage_type ?? 'n/a']);
  if (s.sealed === false) {
    rows.push(['Cluster Name', s.cluster_name ?? 'n/a']);
    rows.push(['Cluster ID', s.cluster_id ?? 'n/a']);
  }
  rows.push(['HA Enabled', s.ha_enabled ?? false]);
  return keyValueTable(rows);
}

export function registerStatusCommand(program: Command, deps: CliDeps): void {
  program
    .command('status')
    .description('print the seal status (exit code 2 when sealed, as Vault)')
    .action(
      action(deps, async (ctx) => {
        activity.doing = 'checking seal status';
        const res = await ctx.http.get('sys/seal-status', { token: null });
        ctx.output(res.body, sealStatusTable);
        if (res.body?.sealed === true) process.exitCode = EXIT_REMOTE;
      }),
    );
}

async function keyFromArgsOrPrompt(ctx: CliContext, args: string[], what: string): Promise<string> {
  expectArgs(args, 0, 1);
  if (args[0] !== undefined && args[0] !== '-') return args[0];
  const key = (await ctx.ui.promptHidden(`${what} (will be hidden): `)).trim();
  if (key === '') throw new CliUsageError(`no ${what.toLowerCase()} entered`);
  return key;
}

export function registerOperatorCommands(program: Command, deps: CliDeps): void {
  const operator = program.command('operator').description('operator tasks: init, unseal, seal, rekey, ...');

  operator
    .command('init')
    .description('initialise the server (sys/init)')
    .option('--key-shares <n>', 'number of key shares', intOption, 5)
    .option('--key-threshold <n>', 'shares needed to unseal', intOption, 3)
    .option('--pgp-keys <keys>', 'comma-separated base64 PGP public keys to encrypt the shares')
    .option('--root-token-pgp-key <key>', 'base64 PGP public key to encrypt the root token')
    .option('--status', 'only report whether the server is initialised (exit 0 yes, 2 no)')
    .action(
      action<{
        keyShares: number;
        keyThreshold: number;
        pgpKeys?: string;
        rootTokenPgpKey?: string;
        status?: boolean;
      }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 0);
        activity.doing = 'initializing';
        if (opts.status === true) {
          const res = await ctx.http.get('sys/init', { token: null });
          const initialized = res.body?.initialized === true;
          if (ctx.structured) ctx.output(res.body);
          else ctx.ui.print(initialized ? 'Vault is initialized' : 'Vault is not initialized');
          if (!initialized) process.exitCode = EXIT_REMOTE;
          return;
        }
        const body: JsonObject = { secret_shares: opts.keyShares, secret_threshold: opts.keyThreshold };
        if (opts.pgpKeys !== undefined) body.pgp_keys = opts.pgpKeys.split(',');
        if (opts.rootTokenPgpKey !== undefined) body.root_token_pgp_key = opts.rootTokenPgpKey;
        const res = await ctx.http.put('sys/init', body, { token: null });
        const out = res.body ?? {};
        ctx.output(out, (b) => {
          const keys = Array.isArray(b.keys_base64) ? b.keys_base64 : Array.isArray(b.keys) ? b.keys : [];
          const lines = keys.map((k, i) => `Unseal Key ${i + 1}: ${formatValue(k)}`);
          lines.push('', `Initial Root Token: ${formatValue(b.root_token)}`, '');
          lines.push(
            `Vault initialized with ${keys.length} key shares and a key threshold of ${opts.keyThreshold}. ` +
              `Please securely distribute the key shares printed above. When the server is re-sealed, ` +
              `restarted, or stopped, you must supply at least ${opts.keyThreshold} of these keys to unseal it ` +
              'before it can start servicing requests.',
          );
          return lines.join('\n');
        });
      }),
    );

  operator
    .command('unseal')
    .description('provide one unseal key share (prompted with hidden input when omitted)')
    .argument('[key]')
    .option('--reset', 'discard the shares entered so far')
    .action(
      action<{ reset?: boolean }>(deps, async (ctx, args, opts) => {
        activity.doing = 'unsealing';
        const body =
          opts.reset === true ? { reset: true } : { key: await keyFromArgsOrPrompt(ctx, args, 'Unseal Key') };
        const res = await ctx.http.put('sys/unseal', body, { token: null });
        ctx.output(res.body, sealStatusTable);
      }),
    );

  operator
    .command('seal')
    .description('seal the server')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 0);
        activity.doing = 'sealing';
        await ctx.http.put('sys/seal');
        ctx.ui.success('Success! Vault is sealed.');
      }),
    );

  registerRekey(operator, deps);
  registerGenerateRoot(operator, deps);

  operator
    .command('members')
    .description('list the nodes of the HA cluster (sys/ha-status)')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 0);
        activity.doing = 'listing HA members';
        const res = await ctx.http.get('sys/ha-status');
        ctx.output(res.body, (b) => {
          const nodes =
            isObject(b.data) && Array.isArray(b.data.nodes)
              ? b.data.nodes
              : Array.isArray(b.nodes)
                ? b.nodes
                : [];
          return headedTable(
            ['Host Name', 'API Address', 'Cluster Address', 'Active Node', 'Version', 'Last Echo'],
            nodes
              .filter(isObject)
              .map((n) => [
                formatValue(n.hostname),
                formatValue(n.api_address),
                formatValue(n.cluster_address),
                formatValue(n.active_node),
                formatValue(n.version),
                formatValue(n.last_echo),
              ]),
          );
        });
      }),
    );
}

function progressTable(b: JsonObject, label: string): string {
  const rows: [string, unknown][] = [
    ['Nonce', b.nonce || 'n/a'],
    ['Started', b.started],
    [`${label} Progress`, `${formatValue(b.progress)}/${formatValue(b.required)}`],
  ];
  if (b.n !== undefined) rows.push(['New Shares', b.n]);
  if (b.t !== undefined) rows.push(['New Threshold', b.t]);
  if (b.otp_length !== undefined) rows.push(['OTP Length', b.otp_length]);
  if (typeof b.otp === 'string' && b.otp !== '') rows.push(['OTP', b.otp]);
  if (b.pgp_fingerprint) rows.push(['PGP Fingerprint', b.pgp_fingerprint]);
  if (b.backup !== undefined) rows.push(['Backup', b.backup]);
  if (b.verification_required !== undefined) rows.push(['Verification Required', b.verification_required]);
  return keyValueTable(rows);
}

function registerRekey(operator: Command, deps: CliDeps): void {
  operator
    .command('rekey')
    .description('generate new unseal key shares (-init, then one key share per run; -status, -cancel)')
    .argument('[key]')
    .option('--init', 'start a rekey')
    .option('--cancel', 'cancel the rekey in progress')
    .option('--status', 'print the rekey progress')
    .option('--key-shares <n>', 'new number of key shares', intOption, 5)
    .option('--key-threshold <n>', 'new threshold', intOption, 3)
    .option('--nonce <nonce>', 'the nonce of the rekey (read from the status when omitted)')
    .option('--pgp-keys <keys>', 'comma-separated base64 PGP public keys for the new shares')
    .option('--backup', 'keep PGP-encrypted shares in the backup store')
    .action(
      action<{
        init?: boolean;
        cancel?: boolean;
        status?: boolean;
        keyShares: number;
        keyThreshold: number;
        nonce?: string;
        pgpKeys?: string;
        backup?: boolean;
      }>(deps, async (ctx, args, opts) => {
        activity.doing = 'rekeying';
        if (opts.init === true) {
          const body: JsonObject = { secret_shares: opts.keyShares, secret_threshold: opts.keyThreshold };
          if (opts.pgpKeys !== undefined) body.pgp_keys = opts.pgpKeys.split(',');
          if (opts.backup === true) body.backup = true;
          const res = await ctx.http.put('sys/rekey/init', body);
          return ctx.output(res.body, (b) => progressTable(b, 'Rekey'));
        }
        if (opts.cancel === true) {
          await ctx.http.delete('sys/rekey/init');
          return ctx.ui.success('Success! Canceled rekeying (if it was started)');
        }
        if (opts.status === true) {
          const res = await ctx.http.get('sys/rekey/init');
          return ctx.output(res.body, (b) => progressTable(b, 'Rekey'));
        }
        const status = (await ctx.http.get('sys/rekey/init')).body ?? {};
        const nonce = opts.nonce ?? formatValue(status.nonce ?? '');
        const key = await keyFromArgsOrPrompt(ctx, args, 'Rekey Key (existing unseal key)');
        const res = await ctx.http.put('sys/rekey/update', { key, nonce });
        ctx.output(res.body, (b) => {
          if (b.complete !== true) {
            const status = progressTable(b, 'Rekey');
            return `${status}\n\nKey share accepted: enter more with \`coffer operator rekey\` until the threshold is met.`;
          }
          const keys = Array.isArray(b.keys_base64) ? b.keys_base64 : Array.isArray(b.keys) ? b.keys : [];
          return [
            ...keys.map((k, i) => `Key ${i + 1}: ${formatValue(k)}`),
            '',
            `Operation nonce: ${formatValue(b.nonce)}`,
            '',
            `Vault rekeyed with ${keys.length} key shares and a key threshold of ${formatValue(b.t ?? status.t)}.`,
          ].join('\n');
        });
      }),
    );
}

/** Vault's OTP decoding: base64(token XOR otp) back to the token. */
export function decodeWithOtp(encoded: string, otp: string): string {
  const bytes = Buffer.from(encoded, 'base64');
  const pad = Buffer.from(otp, 'utf8');
  if (bytes.length !== pad.length) throw new CliUsageError('the OTP length does not match the encoded token');
  return Buffer.from(bytes.map((b, i) => b ^ pad[i]!)).toString('utf8');
}

function registerGenerateRoot(operator: Command, deps: CliDeps): void {
  operator
    .command('generate-root')
    .description('generate a new root token from unseal key shares (-init, keys, -decode)')
    .argument('[key]')
    .option('--init', 'start generating a root token')
    .option('--cancel', 'cancel the attempt in progress')
    .option('--status', 'print the progress')
    .option('--otp <otp>', 'one-time pad (with -init or -decode)')
    .option('--pgp-key <key>', 'base64 PGP key to encrypt the token with (with -init)')
    .option('--nonce <nonce>', 'the nonce of the attempt (read from the status when omitted)')
    .option('--decode <encoded>', 'decode an encoded root token with -otp')
    .action(
      action<{
        init?: boolean;
        cancel?: boolean;
        status?: boolean;
        otp?: string;
        pgpKey?: string;
        nonce?: string;
        decode?: string;
      }>(deps, async (ctx, args, opts) => {
        activity.doing = 'generating root';
        if (opts.decode !== undefined) {
          if (opts.otp === undefined) throw new CliUsageError('-decode needs -otp');
          const token = decodeWithOtp(opts.decode, opts.otp);
          if (ctx.structured) ctx.output({ token });
          else ctx.ui.printRaw(token);
          return;
        }
        if (opts.init === true) {
          const body: JsonObject = {};
          if (opts.otp !== undefined) body.otp = opts.otp;
          if (opts.pgpKey !== undefined) body.pgp_key = opts.pgpKey;
          const res = await ctx.http.put('sys/generate-root/attempt', body, { token: null });
          return ctx.output(res.body, (b) => progressTable(b, 'Root Generation'));
        }
        if (opts.cancel === true) {
          await ctx.http.delete('sys/generate-root/attempt', { token: null });
          return ctx.ui.success('Success! Root token generation canceled (if it was started)');
        }
        if (opts.status === true) {
          const res = await ctx.http.get('sys/generate-root/attempt', { token: null });
          return ctx.output(res.body, (b) => progressTable(b, 'Root Generation'));
        }
        const nonce =
          opts.nonce ??
          formatValue((await ctx.http.get('sys/generate-root/attempt', { token: null })).body?.nonce ?? '');
        const key = await keyFromArgsOrPrompt(ctx, args, 'Unseal Key');
        const res = await ctx.http.put('sys/generate-root/update', { key, nonce }, { token: null });
        ctx.output(res.body, (b) => {
          const rows: [string, unknown][] = [
            ['Nonce', b.nonce],
            ['Started', b.started],
            ['Progress', `${formatValue(b.progress)}/${formatValue(b.required)}`],
            ['Complete', b.complete],
          ];
          if (b.encoded_token) rows.push(['Encoded Token', b.encoded_token]);
          if (b.encoded_root_token) rows.push(['Encoded Root Token', b.encoded_root_token]);
          return keyValueTable(rows);
        });
      }),
    );
}
