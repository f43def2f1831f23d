import type { Command } from 'commander';
import { action, activity, expectArgs, type CliDeps } from '../core/cli-command';
import { formatDuration, isObject, keyValueTable, type JsonObject } from '../core/cli-format';

/** Vault's lease lookup view. */
export function leaseTable(body: JsonObject): string {
  const d = isObject(body.data) ? body.data : {};
  return keyValueTable(
    Object.keys(d)
      .sort()
      .map((k): [string, unknown] => [
        k,
        k === 'ttl' && typeof d[k] === 'number' ? formatDuration(d[k]) : d[k],
      ]),
  );
}

export function registerLeaseCommands(program: Command, deps: CliDeps): void {
  const lease = program.command('lease').description('look up, renew and revoke leases');

  lease
    .command('lookup')
    .description('show a lease')
    .argument('<lease_id>')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 1);
        activity.doing = 'looking up lease';
        const res = await ctx.http.put('sys/leases/lookup', { lease_id: args[0] });
        ctx.output(res.body, leaseTable);
      }),
    );

  lease
    .command('renew')
    .description('renew a lease')
    .argument('<lease_id>')
    .option('--increment <duration>', 'requested extension')
    .action(
      action<{ increment?: string }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 1);
        activity.doing = 'renewing lease';
        const body: JsonObject = { lease_id: args[0]! };
        if (opts.increment !== undefined) body.increment = opts.increment;
        const res = await ctx.http.put('sys/leases/renew', body);
        ctx.output(res.body);
      }),
    );

  lease
    .command('revoke')
    .description('revoke a lease, or every lease under a prefix with -prefix')
    .argument('<lease_id_or_prefix>')
    .option('--prefix', 'the argument is a prefix')
    .option('--force', 'with -prefix: remove the leases even if the backend fails to revoke them')
    .action(
      action<{ prefix?: boolean; force?: boolean }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 1);
        const id = args[0]!;
        activity.doing = 'revoking lease';
        if (opts.prefix === true && opts.force === true) await ctx.http.put(`sys/leases/revoke-force/${id}`);
        else if (opts.prefix === true) await ctx.http.put(`sys/leases/revoke-prefix/${id}`);
        else await ctx.http.put('sys/leases/revoke', { lease_id: id });
        ctx.ui.success(
          opts.prefix === true
            ? `Success! Revoked any leases with prefix: ${id}`
            : 'Success! Revoked lease (if it existed)',
        );
      }),
    );
}

/** `unwrap [token]`: the wrapped response, printed as if it had been read directly. */
export function registerUnwrapCommand(program: Command, deps: CliDeps): void {
  program
    .command('unwrap')
    .description('unwrap a wrapped response (the wrapping token, or your own token when omitted)')
    .argument('[token]')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 0, 1);
        activity.doing = 'unwrapping';
        const token = args[0];
        // the wrapping token authenticates the unwrap itself: no other token is needed
        const res = await ctx.http.post('sys/wrapping/unwrap', undefined, {
          ...(token === undefined ? {} : { token }),
          noWrap: true,
        });
        ctx.output(res.body);
      }),
    );
}

export function registerNamespaceCommands(program: Command, deps: CliDeps): void {
  const ns = program.command('namespace').description('create, list, look up and delete namespaces');
  const nsTable = (b: JsonObject) => {
    const d = isObject(b.data) ? b.data : {};
    return keyValueTable(
      Object.keys(d)
        .sort()
        .map((k): [string, unknown] => [k, d[k]]),
    );
  };

  ns.command('create')
    .description('create a child namespace of the current one (-namespace)')
    .argument('<path>')
    .option(
      '--custom-metadata <key=value>',
      'metadata (repeatable)',
      (v: string, p: string[] | undefined) => [...(p ?? []), v],
    )
    .action(
      action<{ customMetadata?: string[] }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 1);
        activity.doing = `creating namespace ${args[0]}`;
        const meta: JsonObject = {};
        for (const [k, v] of Object.entries(ctx.keyValues(opts.customMetadata ?? []))) meta[k] = String(v);
        const res = await ctx.http.post(
          `sys/namespaces/${args[0]}`,
          Object.keys(meta).length > 0 ? { custom_metadata: meta } : {},
        );
        ctx.output(res.body, nsTable);
      }),
    );

  ns.command('list')
    .description('list the child namespaces')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 0);
        activity.doing = 'listing namespaces';
        const res = await ctx.http.list('sys/namespaces', { allowNotFound: true });
        if (res.status === 404) return ctx.ui.print(ctx.structured ? '[]' : 'No namespaces found');
        ctx.outputList(res.body);
      }),
    );

  ns.command('lookup')
    .description('show a namespace')
    .argument('<path>')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 1);
        activity.doing = `looking up namespace ${args[0]}`;
        const res = await ctx.http.get(`sys/namespaces/${args[0]}`);
        ctx.output(res.body, nsTable);
      }),
    );

  ns.command('delete')
    .description('delete a namespace and everything in it')
    .argument('<path>')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 1);
        activity.doing = `deleting namespace ${args[0]}`;
        await ctx.http.delete(`sys/namespaces/${args[0]}`);
        ctx.ui.success(`Success! Namespace deleted at: ${args[0]}/`);
      }),
    );
}
