import type { Command } from 'commander';
import { sanitizePath } from '../core/cli-args';
import { action, activity, expectArgs, type CliDeps } from '../core/cli-command';
import type { CliContext } from '../core/cli-context';
import { CliUsageError, EXIT_REMOTE } from '../core/cli-errors';

/** `read`, `write`, `delete`, `list`, `patch`: any API path, as Vault's generic commands. */
export function registerGenericCommands(program: Command, deps: CliDeps): void {
  program
    .command('read')
    .description('read data from any path (key=value pairs become query parameters)')
    .argument('<path>')
    .argument('[key=value...]')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 1, Infinity);
        const path = sanitizePath(args[0]!);
        const query = stringQuery(ctx.keyValues(args.slice(1)));
        activity.doing = `reading ${path}`;
        const res = await ctx.http.get(path, { query, allowNotFound: true });
        if (res.status === 404) return notFound(ctx, path);
        ctx.output(res.body);
      }),
    );

  program
    .command('write')
    .description('write data to any path (key=value, key=@file, key=- or - for JSON on stdin)')
    .argument('<path>')
    .argument('[key=value...]')
    .option('-f, --force', 'allow writing with no data')
    .action(
      action<{ force?: boolean }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 1, Infinity);
        const path = sanitizePath(args[0]!);
        const data = ctx.keyValues(args.slice(1));
        if (Object.keys(data).length === 0 && opts.force !== true && args.length === 1) {
          // Vault: writing nothing needs -force, so a forgotten argument does not blank a secret
          throw new CliUsageError('Must supply data or use -force');
        }
        activity.doing = `writing to ${path}`;
        const res = await ctx.http.put(path, data);
        printWriteResult(ctx, path, res.body);
      }),
    );

  program
    .command('patch')
    .description('patch (JSON merge) data at any path')
    .argument('<path>')
    .argument('[key=value...]')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 1, Infinity);
        const path = sanitizePath(args[0]!);
        activity.doing = `patching ${path}`;
        const res = await ctx.http.patch(path, ctx.keyValues(args.slice(1)));
        printWriteResult(ctx, path, res.body);
      }),
    );

  program
    .command('delete')
    .description('delete data at any path')
    .argument('<path>')
    .argument('[key=value...]')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 1, Infinity);
        const path = sanitizePath(args[0]!);
        const query = stringQuery(ctx.keyValues(args.slice(1)));
        activity.doing = `deleting ${path}`;
        const res = await ctx.http.delete(path, { query });
        if (res.body !== undefined && ctx.structured) return ctx.output(res.body);
        ctx.ui.success(`Success! Data deleted (if it existed) at: ${path}`);
      }),
    );

  program
    .command('list')
    .description('list the keys under a path')
    .argument('<path>')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 1);
        const path = sanitizePath(args[0]!);
        activity.doing = `listing ${path}`;
        const res = await ctx.http.list(path, { allowNotFound: true });
        if (res.status === 404) return notFound(ctx, path.endsWith('/') ? path : `${path}/`);
        ctx.outputList(res.body);
      }),
    );
}

export function printWriteResult(ctx: CliContext, path: string, body: unknown): void {
  if (body === undefined || (typeof body === 'object' && body !== null && isEmptyEnvelope(body))) {
    if (ctx.structured) return;
    ctx.ui.success(`Success! Data written to: ${path}`);
    return;
  }
  ctx.output(body as never);
}

function isEmptyEnvelope(body: object): boolean {
  const b = body as Record<string, unknown>;
  return (
    (b.data === null || b.data === undefined) &&
    (b.auth === null || b.auth === undefined) &&
    (b.wrap_info === null || b.wrap_info === undefined) &&
    (!Array.isArray(b.warnings) || b.warnings.length === 0)
  );
}

/** Vault prints this on stderr and exits 2 when a read finds nothing. */
export function notFound(ctx: CliContext, path: string): void {
  ctx.ui.error(`No value found at ${path}`);
  process.exitCode = EXIT_REMOTE;
}

function stringQuery(data: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) out[k] = Array.isArray(v) ? v.map(String).join(',') : String(v);
  return out;
}
