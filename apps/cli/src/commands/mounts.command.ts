import type { Command } from 'commander';
import { action, activity, expectArgs, type CliDeps } from '../core/cli-command';
import type { CliContext } from '../core/cli-context';
import { CliUsageError } from '../core/cli-errors';
import { formatValue, headedTable, isObject, type JsonObject } from '../core/cli-format';

const trimSlashes = (p: string): string => p.replace(/^\/+|\/+$/g, '');
const repeat = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** The mount map of sys/mounts, sys/auth or sys/audit: under `data` when the server nests it. */
export function mountEntries(body: JsonObject | undefined): [string, JsonObject][] {
  const source = body !== undefined && isObject(body.data) ? body.data : (body ?? {});
  return Object.entries(source)
    .filter((e): e is [string, JsonObject] => e[0].endsWith('/') && isObject(e[1]))
    .sort(([a], [b]) => a.localeCompare(b));
}

export function mountsTable(body: JsonObject | undefined, detailed: boolean): string {
  const entries = mountEntries(body);
  if (!detailed)
    return headedTable(
      ['Path', 'Type', 'Accessor', 'Description'],
      entries.map(([path, m]) => [
        path,
        formatValue(m.type),
        formatValue(m.accessor),
        formatValue(m.description),
      ]),
    );
  return headedTable(
    [
      'Path',
      'Plugin',
      'Accessor',
      'Default TTL',
      'Max TTL',
      'Local',
      'Seal Wrap',
      'Options',
      'Description',
      'UUID',
    ],
    entries.map(([path, m]) => {
      const c = isObject(m.config) ? m.config : {};
      const ttl = (v: unknown) => (v === 0 || v === undefined ? 'system' : formatValue(v));
      return [
        path,
        formatValue(m.type),
        formatValue(m.accessor),
        ttl(c.default_lease_ttl),
        ttl(c.max_lease_ttl),
        formatValue(m.local ?? false),
        formatValue(m.seal_wrap ?? false),
        formatValue(m.options),
        formatValue(m.description),
        formatValue(m.uuid),
      ];
    }),
  );
}

interface EnableOpts {
  path?: string;
  description?: string;
  defaultLeaseTtl?: string;
  maxLeaseTtl?: string;
  version?: string;
  options?: string[];
  local?: boolean;
  sealWrap?: boolean;
  pluginVersion?: string;
  listingVisibility?: string;
}

function mountBody(ctx: CliContext, type: string, opts: EnableOpts): JsonObject {
  const body: JsonObject = { type };
  if (opts.description !== undefined) body.description = opts.description;
  const config: JsonObject = {};
  if (opts.defaultLeaseTtl !== undefined) config.default_lease_ttl = opts.defaultLeaseTtl;
  if (opts.maxLeaseTtl !== undefined) config.max_lease_ttl = opts.maxLeaseTtl;
  if (opts.listingVisibility !== undefined) config.listing_visibility = opts.listingVisibility;
  if (opts.pluginVersion !== undefined) config.plugin_version = opts.pluginVersion;
  if (Object.keys(config).length > 0) body.config = config;
  const options: JsonObject = {};
  for (const [k, v] of Object.entries(ctx.keyValues(opts.options ?? []))) options[k] = String(v);
  if (opts.version !== undefined) options.version = opts.version;
  if (Object.keys(options).length > 0) body.options = options;
  if (opts.local === true) body.local = true;
  if (opts.sealWrap === true) body.seal_wrap = true;
  return body;
}

function addEnableOptions(cmd: Command): Command {
  return cmd
    .option('--path <path>', 'where to mount it (default: the type)')
    .option('--description <text>', 'human-friendly description')
    .option('--default-lease-ttl <duration>', 'default lease TTL')
    .option('--max-lease-ttl <duration>', 'maximum lease TTL')
    .option('--options <key=value>', 'mount option (repeatable)', repeat)
    .option('--local', 'do not replicate to performance secondaries')
    .option('--seal-wrap', 'seal-wrap the mount')
    .option('--plugin-version <version>', 'plugin version')
    .option('--listing-visibility <mode>', 'unauth or hidden');
}

export function registerSecretsCommands(program: Command, deps: CliDeps): void {
  const secrets = program
    .command('secrets')
    .description('enable, disable, tune, move and list secrets engines');

  addEnableOptions(secrets.command('enable').description('enable a secrets engine').argument('<type>'))
    .option('--version <n>', 'kv version (sets options.version)')
    .action(
      action<EnableOpts>(deps, async (ctx, args, opts) => {
        expectArgs(args, 1);
        const type = args[0]!;
        const path = trimSlashes(opts.path ?? type);
        activity.doing = `enabling secrets engine at ${path}`;
        await ctx.http.post(`sys/mounts/${path}`, mountBody(ctx, type, opts));
        ctx.ui.success(`Success! Enabled the ${type} secrets engine at: ${path}/`);
      }),
    );

  secrets
    .command('disable')
    .description('disable a secrets engine (revokes its leases, deletes its data)')
    .argument('<path>')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 1);
        const path = trimSlashes(args[0]!);
        activity.doing = `disabling secrets engine at ${path}`;
        await ctx.http.delete(`sys/mounts/${path}`);
        ctx.ui.success(`Success! Disabled the secrets engine (if it existed) at: ${path}/`);
      }),
    );

  secrets
    .command('list')
    .description('list the enabled secrets engines')
    .option('--detailed', 'more columns')
    .action(
      action<{ detailed?: boolean }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 0);
        activity.doing = 'listing secrets engines';
        const res = await ctx.http.get('sys/mounts');
        ctx.output(res.body, (b) => mountsTable(b, opts.detailed === true));
      }),
    );

  secrets
    .command('tune')
    .description("tune a secrets engine's configuration")
    .argument('<path>')
    .option('--description <text>', 'description')
    .option('--default-lease-ttl <duration>', 'default lease TTL')
    .option('--max-lease-ttl <duration>', 'maximum lease TTL')
    .option('--listing-visibility <mode>', 'unauth or hidden')
    .option('--options <key=value>', 'mount option (repeatable)', repeat)
    .option('--version <n>', 'kv version (sets options.version)')
    .option('--plugin-version <version>', 'plugin version')
    .action(
      action<EnableOpts>(deps, async (ctx, args, opts) => {
        expectArgs(args, 1);
        const path = trimSlashes(args[0]!);
        const { type: _type, config, ...rest } = mountBody(ctx, '', opts);
        const body: JsonObject = { ...rest, ...(isObject(config) ? config : {}) };
        if (Object.keys(body).length === 0)
          throw new CliUsageError('nothing to tune: give at least one flag');
        activity.doing = `tuning secrets engine ${path}`;
        await ctx.http.post(`sys/mounts/${path}/tune`, body);
        ctx.ui.success(`Success! Tuned the secrets engine at: ${path}/`);
      }),
    );

  secrets
    .command('move')
    .description('move a secrets engine to a new path (sys/remount), with progress')
    .argument('<source>')
    .argument('<destination>')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 2);
        const [from, to] = args.map(trimSlashes) as [string, string];
        activity.doing = `moving secrets engine ${from}/ to ${to}/`;
        const res = await ctx.http.post('sys/remount', { from, to });
        const id = isObject(res.body?.data) ? res.body.data.migration_id : res.body?.migration_id;
        if (typeof id !== 'string' || id === '')
          throw new CliUsageError('the server answered no migration_id for the move');
        if (!ctx.structured)
          ctx.ui.print(`Started moving secrets engine ${from}/ to ${to}/, with migration ID ${id}`);
        const final = await followMigration(ctx, id);
        // Scripts get the migration's final status as the server reports it.
        if (ctx.structured) ctx.output(final);
        else
          ctx.ui.success(
            `Success! Finished moving secrets engine ${from}/ to ${to}/, with migration ID ${id}`,
          );
      }),
    );
}

/** Polls sys/remount/status/:id until the move finishes, showing its status on a terminal. */
async function followMigration(ctx: CliContext, id: string): Promise<JsonObject | undefined> {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const res = await ctx.http.get(`sys/remount/status/${id}`);
    const info =
      isObject(res.body?.data) && isObject(res.body.data.migration_info) ? res.body.data.migration_info : {};
    const status = formatValue(info.status ?? 'unknown');
    ctx.ui.progress(
      `Moving ${formatValue(info.source_mount)} → ${formatValue(info.target_mount)}: ${status}`,
    );
    if (status === 'success') {
      ctx.ui.endProgress();
      return res.body;
    }
    if (status === 'failure') {
      ctx.ui.endProgress();
      throw new CliUsageError(`the move failed (migration ${id}): see the server log for migration_id ${id}`);
    }
    if (Date.now() > deadline) {
      ctx.ui.endProgress();
      throw new CliUsageError(`the move is still running: check \`coffer read sys/remount/status/${id}\``);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

export function registerAuthCommands(program: Command, deps: CliDeps): void {
  const auth = program.command('auth').description('enable, disable and list auth methods');

  auth
    .command('enable')
    .description('enable an auth method')
    .argument('<type>')
    .option('--path <path>', 'where to mount it (default: the type)')
    .option('--description <text>', 'human-friendly description')
    .option('--default-lease-ttl <duration>', 'default lease TTL')
    .option('--max-lease-ttl <duration>', 'maximum lease TTL')
    .option('--listing-visibility <mode>', 'unauth or hidden')
    .option('--local', 'do not replicate')
    .action(
      action<EnableOpts>(deps, async (ctx, args, opts) => {
        expectArgs(args, 1);
        const type = args[0]!;
        const path = trimSlashes(opts.path ?? type);
        activity.doing = `enabling auth method at ${path}`;
        await ctx.http.post(`sys/auth/${path}`, mountBody(ctx, type, opts));
        ctx.ui.success(`Success! Enabled ${type} auth method at: ${path}/`);
      }),
    );

  auth
    .command('disable')
    .description('disable an auth method (revokes its tokens)')
    .argument('<path>')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 1);
        const path = trimSlashes(args[0]!);
        activity.doing = `disabling auth method at ${path}`;
        await ctx.http.delete(`sys/auth/${path}`);
        ctx.ui.success(`Success! Disabled the auth method (if it existed) at: ${path}/`);
      }),
    );

  auth
    .command('list')
    .description('list the enabled auth methods')
    .option('--detailed', 'more columns')
    .action(
      action<{ detailed?: boolean }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 0);
        activity.doing = 'listing auth methods';
        const res = await ctx.http.get('sys/auth');
        ctx.output(res.body, (b) => mountsTable(b, opts.detailed === true));
      }),
    );
}

export function registerAuditCommands(program: Command, deps: CliDeps): void {
  const audit = program.command('audit').description('enable, disable and list audit devices');

  audit
    .command('enable')
    .description('enable an audit device: coffer audit enable file file_path=/var/log/coffer.log')
    .argument('<type>')
    .argument('[key=value...]')
    .option('--path <path>', 'where to mount it (default: the type)')
    .option('--description <text>', 'description')
    .option('--local', 'do not replicate')
    .action(
      action<{ path?: string; description?: string; local?: boolean }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 1, Infinity);
        const type = args[0]!;
        const path = trimSlashes(opts.path ?? type);
        const options: JsonObject = {};
        for (const [k, v] of Object.entries(ctx.keyValues(args.slice(1)))) options[k] = String(v);
        const body: JsonObject = { type, options };
        if (opts.description !== undefined) body.description = opts.description;
        if (opts.local === true) body.local = true;
        activity.doing = `enabling audit device at ${path}`;
        await ctx.http.put(`sys/audit/${path}`, body);
        ctx.ui.success(`Success! Enabled the ${type} audit device at: ${path}/`);
      }),
    );

  audit
    .command('disable')
    .description('disable an audit device')
    .argument('<path>')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 1);
        const path = trimSlashes(args[0]!);
        activity.doing = `disabling audit device at ${path}`;
        await ctx.http.delete(`sys/audit/${path}`);
        ctx.ui.success(`Success! Disabled audit device (if it was enabled) at: ${path}/`);
      }),
    );

  audit
    .command('list')
    .description('list the enabled audit devices')
    .option('--detailed', 'show the options too')
    .action(
      action<{ detailed?: boolean }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 0);
        activity.doing = 'listing audit devices';
        const res = await ctx.http.get('sys/audit');
        ctx.output(res.body, (b) => {
          const entries = mountEntries(b);
          if (entries.length === 0) return 'No audit devices are enabled.';
          const header = ['Path', 'Type', 'Description'];
          if (opts.detailed === true) header.push('Replication', 'Options');
          return headedTable(
            header,
            entries.map(([path, m]) => {
              const row = [path, formatValue(m.type), formatValue(m.description)];
              if (opts.detailed === true)
                row.push(m.local === true ? 'local' : 'replicated', formatValue(m.options));
              return row;
            }),
          );
        });
      }),
    );
}
