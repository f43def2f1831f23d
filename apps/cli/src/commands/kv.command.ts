import type { Command } from 'commander';
import { parseBool } from '../core/cli-args';
import { action, activity, expectArgs, type CliDeps } from '../core/cli-command';
import type { CliContext } from '../core/cli-context';
import { CliUsageError, EXIT_REMOTE } from '../core/cli-errors';
import {
  formatStructured,
  formatWarnings,
  isObject,
  keyValueTable,
  rawField,
  sectionHeading,
  type JsonObject,
} from '../core/cli-format';
import { notFound } from './generic.command';
import { resolveKv, v1Path, v2Path, type KvTarget } from './kv-target';

function section(title: string, content: string): string {
  const width = Math.max(...content.split('\n').map((l) => l.length), title.length + 6);
  return `${sectionHeading(title, width)}\n${content}`;
}

function metadataRows(meta: JsonObject): string {
  return keyValueTable(
    Object.keys(meta)
      .sort()
      .map((k): [string, unknown] => [k, meta[k]]),
  );
}

/** Vault's kv get / kv put view: path, metadata, data sections. */
function kvView(ctx: CliContext, body: JsonObject, secretPath: string, withData: boolean): void {
  // a wrapped answer (-wrap-ttl) carries only the wrapping token: print it as any wrapped secret
  if (isObject(body.wrap_info)) return ctx.output(body);
  if (ctx.flags.field !== undefined || ctx.structured) {
    const data = isObject(body.data) ? body.data : {};
    const inner = withData && isObject(data.data) ? data.data : data;
    if (ctx.flags.field !== undefined) {
      const value = isObject(inner) ? inner[ctx.flags.field] : undefined;
      if (value === undefined) throw new CliUsageError(`Field "${ctx.flags.field}" not present in secret`);
      return ctx.ui.printRaw(rawField(value));
    }
    return ctx.ui.print(formatStructured(body, ctx.format === 'yaml' ? 'yaml' : 'json'));
  }
  const data = isObject(body.data) ? body.data : {};
  const meta = withData ? (isObject(data.metadata) ? data.metadata : {}) : data;
  const parts = [section('Secret Path', secretPath), section('Metadata', metadataRows(meta))];
  if (withData && isObject(data.data))
    parts.push(
      section(
        'Data',
        keyValueTable(
          Object.keys(data.data)
            .sort()
            .map((k): [string, unknown] => [k, (data.data as JsonObject)[k]]),
        ),
      ),
    );
  const warnings = Array.isArray(body.warnings) ? body.warnings.map(String) : [];
  ctx.ui.print(`${formatWarnings(warnings)}${parts.join('\n\n')}`);
}

const versionsOption = (v: string, prev: number[] | undefined): number[] => [
  ...(prev ?? []),
  ...v.split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n < 0) throw new CliUsageError(`invalid version "${s}"`);
    return n;
  }),
];

const requireV2 = (t: KvTarget, what: string) => {
  if (t.version !== 2)
    throw new CliUsageError(`${what} is only supported on a version 2 K/V mount (${t.mount}/ is version 1)`);
};

export function registerKvCommands(program: Command, deps: CliDeps): void {
  const kv = program.command('kv').description('the key/value secrets engine (v1 and v2 detected)');

  kv.command('get')
    .description('read a secret')
    .argument('<path>')
    .option('--mount <path>', 'the kv mount; the path is then relative to it')
    .option('--version <n>', 'which version (v2)')
    .action(
      action<{ mount?: string; version?: string }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 1);
        const t = await resolveKv(ctx, args[0]!, opts.mount);
        if (t.version === 1) {
          const path = v1Path(t);
          activity.doing = `reading ${path}`;
          const res = await ctx.http.get(path, { allowNotFound: true });
          if (res.status === 404) return notFound(ctx, path);
          return ctx.output(res.body);
        }
        const path = v2Path(t, 'data');
        activity.doing = `reading ${path}`;
        const res = await ctx.http.get(path, { allowNotFound: true, query: { version: opts.version } });
        const data = isObject(res.body?.data) ? res.body.data : undefined;
        if (res.status === 404) {
          // a deleted or destroyed version: Vault prints its metadata, then "No value found"
          if (data !== undefined && isObject(data.metadata) && !ctx.structured)
            ctx.ui.print(section('Metadata', metadataRows(data.metadata)));
          return notFound(ctx, path);
        }
        kvView(ctx, res.body ?? {}, path, true);
      }),
    );

  kv.command('put')
    .description('create or replace a secret (key=value, key=@file, - for JSON on stdin)')
    .argument('<path>')
    .argument('<key=value...>')
    .option('--mount <path>', 'the kv mount')
    .option('--cas <n>', 'check-and-set: the version being replaced (0: only create)')
    .action(
      action<{ mount?: string; cas?: string }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 2, Infinity);
        const t = await resolveKv(ctx, args[0]!, opts.mount);
        const data = ctx.keyValues(args.slice(1));
        if (t.version === 1) {
          const path = v1Path(t);
          activity.doing = `writing data to ${path}`;
          await ctx.http.put(path, data);
          if (!ctx.structured) ctx.ui.success(`Success! Data written to: ${path}`);
          return;
        }
        const path = v2Path(t, 'data');
        const body: JsonObject = { data: data as JsonObject };
        if (opts.cas !== undefined) body.options = { cas: Number(opts.cas) };
        activity.doing = `writing data to ${path}`;
        const res = await ctx.http.post(path, body);
        kvView(ctx, res.body ?? {}, path, false);
      }),
    );

  kv.command('patch')
    .description('merge keys into an existing secret (v2)')
    .argument('<path>')
    .argument('<key=value...>')
    .option('--mount <path>', 'the kv mount')
    .option('--cas <n>', 'check-and-set version')
    .option('--method <method>', 'patch (HTTP PATCH, default) or rw (read, merge, write)', 'patch')
    .action(
      action<{ mount?: string; cas?: string; method: string }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 2, Infinity);
        const t = await resolveKv(ctx, args[0]!, opts.mount);
        requireV2(t, 'kv patch');
        const path = v2Path(t, 'data');
        const data = ctx.keyValues(args.slice(1)) as JsonObject;
        activity.doing = `patching ${path}`;
        let res;
        if (opts.method === 'rw') {
          const current = await ctx.http.get(path, { allowNotFound: true });
          const cur = isObject(current.body?.data) ? current.body.data : {};
          if (current.status === 404 || !isObject(cur.data)) return notFound(ctx, path);
          const version = isObject(cur.metadata) ? Number(cur.metadata.version) : 0;
          res = await ctx.http.post(path, {
            data: { ...cur.data, ...data },
            options: { cas: opts.cas === undefined ? version : Number(opts.cas) },
          });
        } else if (opts.method === 'patch') {
          const body: JsonObject = { data };
          if (opts.cas !== undefined) body.options = { cas: Number(opts.cas) };
          res = await ctx.http.patch(path, body);
        } else throw new CliUsageError('-method must be patch or rw');
        kvView(ctx, res.body ?? {}, path, false);
      }),
    );

  kv.command('delete')
    .description('delete the latest version (or -versions) of a secret')
    .argument('<path>')
    .option('--mount <path>', 'the kv mount')
    .option('--versions <n,...>', 'versions to delete (v2)', versionsOption)
    .action(
      action<{ mount?: string; versions?: number[] }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 1);
        const t = await resolveKv(ctx, args[0]!, opts.mount);
        let path: string;
        if (t.version === 1) {
          path = v1Path(t);
          activity.doing = `deleting ${path}`;
          await ctx.http.delete(path);
        } else if (opts.versions !== undefined) {
          path = v2Path(t, 'delete');
          activity.doing = `deleting ${path}`;
          await ctx.http.post(path, { versions: opts.versions });
        } else {
          path = v2Path(t, 'data');
          activity.doing = `deleting ${path}`;
          await ctx.http.delete(path);
        }
        ctx.ui.success(`Success! Data deleted (if it existed) at: ${path}`);
      }),
    );

  for (const [verb, part, method] of [
    ['undelete', 'undelete', 'post'],
    ['destroy', 'destroy', 'put'],
  ] as const) {
    kv.command(verb)
      .description(
        verb === 'undelete' ? 'restore deleted versions (v2)' : 'permanently destroy versions (v2)',
      )
      .argument('<path>')
      .option('--mount <path>', 'the kv mount')
      .requiredOption('--versions <n,...>', 'versions', versionsOption)
      .action(
        action<{ mount?: string; versions: number[] }>(deps, async (ctx, args, opts) => {
          expectArgs(args, 1);
          const t = await resolveKv(ctx, args[0]!, opts.mount);
          requireV2(t, `kv ${verb}`);
          const path = v2Path(t, part);
          activity.doing = `writing to ${path}`;
          await ctx.http[method](path, { versions: opts.versions });
          ctx.ui.success(`Success! Data written to: ${path}`);
        }),
      );
  }

  kv.command('list')
    .description('list the keys under a path')
    .argument('[path]')
    .option('--mount <path>', 'the kv mount')
    .action(
      action<{ mount?: string }>(deps, async (ctx, args, opts) => {
        expectArgs(args, opts.mount === undefined ? 1 : 0, 1);
        const t = await resolveKv(ctx, args[0] ?? '', opts.mount);
        const path = t.version === 2 ? v2Path(t, 'metadata') : v1Path(t);
        activity.doing = `listing ${path}`;
        const res = await ctx.http.list(path, { allowNotFound: true });
        if (res.status === 404) return notFound(ctx, path.endsWith('/') ? path : `${path}/`);
        ctx.outputList(res.body);
      }),
    );

  kv.command('rollback')
    .description('write an older version back as the newest (v2; client-side, with check-and-set)')
    .argument('<path>')
    .option('--mount <path>', 'the kv mount')
    .requiredOption('--version <n>', 'the version to roll back to')
    .action(
      action<{ mount?: string; version: string }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 1);
        const t = await resolveKv(ctx, args[0]!, opts.mount);
        requireV2(t, 'kv rollback');
        const dataPath = v2Path(t, 'data');
        activity.doing = `rolling back ${dataPath}`;
        const meta = await ctx.http.get(v2Path(t, 'metadata'), { allowNotFound: true });
        if (meta.status === 404) return notFound(ctx, dataPath);
        const current = isObject(meta.body?.data) ? Number(meta.body.data.current_version) : 0;
        const old = await ctx.http.get(dataPath, { query: { version: opts.version }, allowNotFound: true });
        const oldData = isObject(old.body?.data) ? old.body.data.data : undefined;
        if (old.status === 404 || !isObject(oldData)) {
          ctx.ui.error(
            `Cannot roll back to version ${opts.version}: it is deleted, destroyed or does not exist`,
          );
          process.exitCode = EXIT_REMOTE;
          return;
        }
        const res = await ctx.http.post(dataPath, { data: oldData, options: { cas: current } });
        kvView(ctx, res.body ?? {}, dataPath, false);
      }),
    );

  registerKvMetadata(kv, deps);
}

function registerKvMetadata(kv: Command, deps: CliDeps): void {
  const metadata = kv.command('metadata').description("a secret's metadata and versions (v2)");

  metadata
    .command('get')
    .description('show the metadata and every version')
    .argument('<path>')
    .option('--mount <path>', 'the kv mount')
    .action(
      action<{ mount?: string }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 1);
        const t = await resolveKv(ctx, args[0]!, opts.mount);
        requireV2(t, 'kv metadata');
        const path = v2Path(t, 'metadata');
        activity.doing = `reading ${path}`;
        const res = await ctx.http.get(path, { allowNotFound: true });
        if (res.status === 404) return notFound(ctx, path);
        if (ctx.structured || ctx.flags.field !== undefined) return ctx.output(res.body);
        const data = isObject(res.body?.data) ? res.body.data : {};
        const { versions, ...rest } = data;
        const parts = [section('Metadata Path', path), section('Metadata', metadataRows(rest))];
        if (isObject(versions))
          for (const v of Object.keys(versions).sort((a, b) => Number(a) - Number(b))) {
            const info = versions[v];
            if (isObject(info)) parts.push(section(`Version ${v}`, metadataRows(info)));
          }
        ctx.ui.print(parts.join('\n\n'));
      }),
    );

  metadata
    .command('put')
    .description("set a secret's metadata")
    .argument('<path>')
    .option('--mount <path>', 'the kv mount')
    .option('--max-versions <n>', 'versions to keep (0: the mount default)')
    .option('--cas-required <bool>', 'require check-and-set on writes', parseBool)
    .option('--delete-version-after <duration>', 'delete versions after this long')
    .option(
      '--custom-metadata <key=value>',
      'custom metadata (repeatable)',
      (v: string, p: string[] | undefined) => [...(p ?? []), v],
    )
    .action(
      action<{
        mount?: string;
        maxVersions?: string;
        casRequired?: boolean;
        deleteVersionAfter?: string;
        customMetadata?: string[];
      }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 1);
        const t = await resolveKv(ctx, args[0]!, opts.mount);
        requireV2(t, 'kv metadata');
        const body: JsonObject = {};
        if (opts.maxVersions !== undefined) body.max_versions = Number(opts.maxVersions);
        if (opts.casRequired !== undefined) body.cas_required = opts.casRequired;
        if (opts.deleteVersionAfter !== undefined) body.delete_version_after = opts.deleteVersionAfter;
        if (opts.customMetadata !== undefined) {
          const meta: JsonObject = {};
          for (const [k, v] of Object.entries(ctx.keyValues(opts.customMetadata))) meta[k] = String(v);
          body.custom_metadata = meta;
        }
        const path = v2Path(t, 'metadata');
        activity.doing = `writing to ${path}`;
        await ctx.http.post(path, body);
        ctx.ui.success(`Success! Data written to: ${path}`);
      }),
    );

  metadata
    .command('delete')
    .description('delete the metadata and every version')
    .argument('<path>')
    .option('--mount <path>', 'the kv mount')
    .action(
      action<{ mount?: string }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 1);
        const t = await resolveKv(ctx, args[0]!, opts.mount);
        requireV2(t, 'kv metadata');
        const path = v2Path(t, 'metadata');
        activity.doing = `deleting ${path}`;
        await ctx.http.delete(path);
        ctx.ui.success(`Success! Data deleted (if it existed) at: ${path}`);
      }),
    );
}
