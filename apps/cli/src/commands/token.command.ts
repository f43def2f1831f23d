import type { Command } from 'commander';
import { collectList, parseBool } from '../core/cli-args';
import { action, activity, expectArgs, type CliDeps } from '../core/cli-command';
import { CliUsageError } from '../core/cli-errors';
import { formatDuration, isObject, keyValueTable, type JsonObject } from '../core/cli-format';

const DURATION_KEYS = new Set(['ttl', 'creation_ttl', 'explicit_max_ttl', 'period']);

/** Vault's token lookup view: the data keys, TTLs humanized. */
export function tokenLookupTable(body: JsonObject): string {
  const data = isObject(body.data) ? body.data : {};
  return keyValueTable(
    Object.keys(data)
      .sort()
      .map((k): [string, unknown] => {
        const v = data[k];
        return [k, DURATION_KEYS.has(k) && typeof v === 'number' ? formatDuration(v) : v];
      }),
  );
}

interface CreateOpts {
  id?: string;
  displayName?: string;
  ttl?: string;
  explicitMaxTtl?: string;
  period?: string;
  renewable?: boolean;
  orphan?: boolean;
  noDefaultPolicy?: boolean;
  metadata?: string[];
  policy?: string[];
  role?: string;
  type?: string;
  useLimit?: string;
  entityAlias?: string;
}

const repeat = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

export function registerTokenCommands(program: Command, deps: CliDeps): void {
  const token = program.command('token').description('create, look up, renew and revoke tokens');

  token
    .command('create')
    .description('create a token (auth/token/create)')
    .option('--id <id>', 'the token value (root only)')
    .option('--display-name <name>', 'display name')
    .option('--ttl <duration>', 'initial TTL')
    .option('--explicit-max-ttl <duration>', 'hard maximum TTL')
    .option('--period <duration>', 'make a periodic token')
    .option('--renewable <bool>', 'whether the token can be renewed (default true)', parseBool)
    .option('--orphan', 'create a token with no parent')
    .option('--no-default-policy', 'leave out the default policy')
    .option('--metadata <key=value>', 'metadata (repeatable)', repeat)
    .option('--policy <name>', 'policy to attach (repeatable)', collectList)
    .option('--role <name>', 'create against this token role')
    .option('--type <type>', 'service or batch')
    .option('--use-limit <n>', 'number of uses (0 = unlimited)')
    .option('--entity-alias <name>', 'entity alias to associate (with -role)')
    .action(
      action<CreateOpts & { defaultPolicy?: boolean }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 0);
        const body: JsonObject = {};
        if (opts.id !== undefined) body.id = opts.id;
        if (opts.displayName !== undefined) body.display_name = opts.displayName;
        if (opts.ttl !== undefined) body.ttl = opts.ttl;
        if (opts.explicitMaxTtl !== undefined) body.explicit_max_ttl = opts.explicitMaxTtl;
        if (opts.period !== undefined) body.period = opts.period;
        if (opts.renewable !== undefined) body.renewable = opts.renewable;
        if (opts.defaultPolicy === false) body.no_default_policy = true;
        if (opts.policy !== undefined) body.policies = opts.policy;
        if (opts.type !== undefined) body.type = opts.type;
        if (opts.useLimit !== undefined) body.num_uses = Number(opts.useLimit);
        if (opts.entityAlias !== undefined) body.entity_alias = opts.entityAlias;
        if (opts.metadata !== undefined) {
          const meta: JsonObject = {};
          for (const [k, v] of Object.entries(ctx.keyValues(opts.metadata))) meta[k] = String(v);
          body.meta = meta;
        }
        const path =
          opts.role !== undefined
            ? `auth/token/create/${opts.role}`
            : opts.orphan === true
              ? 'auth/token/create-orphan'
              : 'auth/token/create';
        activity.doing = 'creating token';
        const res = await ctx.http.post(path, body);
        ctx.output(res.body);
      }),
    );

  token
    .command('lookup')
    .description('show a token (your own when none is given)')
    .argument('[token]')
    .option('--accessor', 'the argument is an accessor')
    .action(
      action<{ accessor?: boolean }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 0, 1);
        activity.doing = 'looking up token';
        const arg = args[0];
        if (opts.accessor === true && arg === undefined)
          throw new CliUsageError('-accessor needs an accessor');
        const res =
          arg === undefined
            ? await ctx.http.get('auth/token/lookup-self')
            : opts.accessor === true
              ? await ctx.http.post('auth/token/lookup-accessor', { accessor: arg })
              : await ctx.http.post('auth/token/lookup', { token: arg });
        ctx.output(res.body, tokenLookupTable);
      }),
    );

  token
    .command('renew')
    .description('renew a token (your own when none is given)')
    .argument('[token]')
    .option('--increment <duration>', 'requested TTL extension')
    .option('--accessor', 'the argument is an accessor')
    .action(
      action<{ increment?: string; accessor?: boolean }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 0, 1);
        activity.doing = 'renewing token';
        const inc = opts.increment === undefined ? {} : { increment: opts.increment };
        const arg = args[0];
        const res =
          arg === undefined
            ? await ctx.http.post('auth/token/renew-self', inc)
            : opts.accessor === true
              ? await ctx.http.post('auth/token/renew-accessor', { accessor: arg, ...inc })
              : await ctx.http.post('auth/token/renew', { token: arg, ...inc });
        ctx.output(res.body);
      }),
    );

  token
    .command('revoke')
    .description('revoke a token and (unless -mode=orphan) its children')
    .argument('[token]')
    .option('--accessor', 'the argument is an accessor')
    .option('--self', 'revoke the token you are using')
    .option('--mode <mode>', 'orphan: keep the children')
    .action(
      action<{ accessor?: boolean; self?: boolean; mode?: string }>(deps, async (ctx, args, opts) => {
        activity.doing = 'revoking token';
        if (opts.self === true) {
          expectArgs(args, 0);
          await ctx.http.post('auth/token/revoke-self');
        } else {
          expectArgs(args, 1);
          const arg = args[0]!;
          if (opts.accessor === true) await ctx.http.post('auth/token/revoke-accessor', { accessor: arg });
          else if (opts.mode === 'orphan') await ctx.http.post('auth/token/revoke-orphan', { token: arg });
          else if (opts.mode === undefined || opts.mode === '')
            await ctx.http.post('auth/token/revoke', { token: arg });
          else throw new CliUsageError(`invalid mode "${opts.mode}": use orphan`);
        }
        ctx.ui.success('Success! Revoked token (if it existed)');
      }),
    );

  token
    .command('capabilities')
    .description("a token's capabilities on a path (your own token when only the path is given)")
    .argument('<token_or_path>')
    .argument('[path]')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 1, 2);
        activity.doing = 'fetching capabilities';
        const path = args[args.length - 1]!;
        const res =
          args.length === 1
            ? await ctx.http.post('sys/capabilities-self', { paths: [path] })
            : await ctx.http.post('sys/capabilities', { token: args[0], paths: [path] });
        ctx.output(res.body, (b) => {
          const caps = Array.isArray(b.capabilities)
            ? b.capabilities
            : isObject(b.data) && Array.isArray(b.data.capabilities)
              ? b.data.capabilities
              : [];
          return caps.map(String).join(', ');
        });
      }),
    );
}
