import type { Command } from 'commander';
import { action, activity, expectArgs, type CliDeps } from '../core/cli-command';
import { CliUsageError } from '../core/cli-errors';
import { formatValue, headedTable, isObject, keyValueTable, type JsonObject } from '../core/cli-format';

const TYPES = ['auth', 'database', 'secret'];
const checkType = (t: string): string => {
  if (!TYPES.includes(t)) throw new CliUsageError(`invalid plugin type "${t}": use auth, database or secret`);
  return t;
};
const repeat = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

export function registerPluginCommands(program: Command, deps: CliDeps): void {
  const plugin = program.command('plugin').description('register, list, inspect and deregister plugins');

  plugin
    .command('register')
    .description('add a plugin to the catalog: coffer plugin register -sha256=<hex> secret my-plugin')
    .argument('<type>')
    .argument('<name>')
    .requiredOption('--sha256 <hex>', 'SHA-256 of the plugin binary')
    .option('--command <command>', 'command to run (default: the name)')
    .option('--args <arg>', 'argument (repeatable)', repeat)
    .option('--env <key=value>', 'environment variable (repeatable)', repeat)
    .option('--version <version>', 'semantic version')
    .action(
      action<{ sha256: string; command?: string; args?: string[]; env?: string[]; version?: string }>(
        deps,
        async (ctx, args, opts) => {
          expectArgs(args, 2);
          const [type, name] = [checkType(args[0]!), args[1]!];
          const body: JsonObject = { sha256: opts.sha256, command: opts.command ?? name };
          if (opts.args !== undefined) body.args = opts.args;
          if (opts.env !== undefined) body.env = opts.env;
          if (opts.version !== undefined) body.version = opts.version;
          activity.doing = `registering plugin ${name}`;
          await ctx.http.put(`sys/plugins/catalog/${type}/${name}`, body);
          ctx.ui.success(`Success! Registered plugin: ${name}`);
        },
      ),
    );

  plugin
    .command('list')
    .description('list the catalog (optionally one type)')
    .argument('[type]')
    .option('--detailed', 'versions and builtin flags')
    .action(
      action<{ detailed?: boolean }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 0, 1);
        const only = args[0] === undefined ? undefined : checkType(args[0]);
        activity.doing = 'listing plugins';
        const res = await ctx.http.get('sys/plugins/catalog');
        ctx.output(res.body, (b) => {
          const data = isObject(b.data) ? b.data : {};
          const detailed = Array.isArray(data.detailed) ? data.detailed.filter(isObject) : [];
          const rows: string[][] = [];
          if (detailed.length > 0) {
            for (const p of detailed) {
              if (only !== undefined && p.type !== only) continue;
              const row = [formatValue(p.name), formatValue(p.type), formatValue(p.version || 'n/a')];
              if (opts.detailed === true)
                row.push(formatValue(p.builtin ?? false), formatValue(p.deprecation_status ?? 'n/a'));
              rows.push(row);
            }
          } else {
            for (const type of TYPES) {
              if (only !== undefined && type !== only) continue;
              const names = Array.isArray(data[type]) ? data[type] : [];
              for (const n of names) rows.push([formatValue(n), type, 'n/a']);
            }
          }
          rows.sort((a, b) => `${a[1]}/${a[0]}`.localeCompare(`${b[1]}/${b[0]}`));
          const header = ['Name', 'Type', 'Version'];
          if (opts.detailed === true) header.push('Builtin', 'Deprecation Status');
          return headedTable(header, rows);
        });
      }),
    );

  plugin
    .command('info')
    .description("show a plugin's catalog entry")
    .argument('<type>')
    .argument('<name>')
    .option('--version <version>', 'which version')
    .action(
      action<{ version?: string }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 2);
        activity.doing = `reading plugin ${args[1]}`;
        const res = await ctx.http.get(`sys/plugins/catalog/${checkType(args[0]!)}/${args[1]}`, {
          query: { version: opts.version },
        });
        ctx.output(res.body, (b) => {
          const d = isObject(b.data) ? b.data : {};
          return keyValueTable(
            Object.keys(d)
              .sort()
              .map((k): [string, unknown] => [k, d[k]]),
          );
        });
      }),
    );

  plugin
    .command('deregister')
    .description('remove a plugin from the catalog')
    .argument('<type>')
    .argument('<name>')
    .option('--version <version>', 'which version')
    .action(
      action<{ version?: string }>(deps, async (ctx, args, opts) => {
        expectArgs(args, 2);
        activity.doing = `deregistering plugin ${args[1]}`;
        await ctx.http.delete(`sys/plugins/catalog/${checkType(args[0]!)}/${args[1]}`, {
          query: { version: opts.version },
        });
        ctx.ui.success(`Success! Deregistered plugin (if it was registered): ${args[1]}`);
      }),
    );
}
