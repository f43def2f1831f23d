import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parseHcl, printHcl, isHclParseError } from '@coffer/hcl';
import { action, activity, expectArgs, type CliDeps } from '../core/cli-command';
import { CliLocalError } from '../core/cli-errors';
import { formatValue, isObject } from '../core/cli-format';

/** Canonical HCL layout of a policy (`policy fmt`); throws on a syntax error. */
export function formatPolicy(text: string): string {
  return printHcl(parseHcl(text));
}

export function registerPolicyCommands(program: Command, deps: CliDeps): void {
  const policy = program.command('policy').description('manage ACL policies');

  policy
    .command('list')
    .description('list the ACL policies')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 0);
        activity.doing = 'listing policies';
        const res = await ctx.http.list('sys/policies/acl');
        if (ctx.structured || ctx.flags.field !== undefined) return ctx.outputList(res.body);
        const keys = isObject(res.body?.data) && Array.isArray(res.body.data.keys) ? res.body.data.keys : [];
        ctx.ui.print(keys.map(String).join('\n'));
      }),
    );

  policy
    .command('read')
    .description('print a policy')
    .argument('<name>')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 1);
        activity.doing = `reading policy ${args[0]}`;
        const res = await ctx.http.get(`sys/policies/acl/${args[0]}`, { allowNotFound: true });
        if (res.status === 404) throw new CliLocalError(`No policy named: ${args[0]}`);
        ctx.output(res.body, (b) => (isObject(b.data) ? formatValue(b.data.policy ?? '') : ''));
      }),
    );

  policy
    .command('write')
    .description('upload a policy from a file or - for standard input')
    .argument('<name>')
    .argument('<file>')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 2);
        const [name, file] = args as [string, string];
        const text = ctx.readInput(file);
        activity.doing = `uploading policy ${name}`;
        await ctx.http.put(`sys/policies/acl/${name}`, { policy: text });
        ctx.ui.success(`Success! Uploaded policy: ${name}`);
      }),
    );

  policy
    .command('delete')
    .description('delete a policy')
    .argument('<name>')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 1);
        activity.doing = `deleting policy ${args[0]}`;
        await ctx.http.delete(`sys/policies/acl/${args[0]}`);
        ctx.ui.success(`Success! Deleted policy: ${args[0]}`);
      }),
    );

  policy
    .command('fmt')
    .description('rewrite a policy file in canonical HCL layout (local, no server)')
    .argument('<file>')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 1);
        const file = args[0]!;
        let text: string;
        try {
          text = readFileSync(file, 'utf8');
        } catch (e) {
          throw new CliLocalError(`Error opening policy file: ${(e as Error).message}`);
        }
        let formatted: string;
        try {
          formatted = formatPolicy(text);
        } catch (e) {
          if (isHclParseError(e)) throw new CliLocalError(`Error parsing policy: ${e.message}`);
          throw e;
        }
        writeFileSync(file, formatted);
        ctx.ui.success(`Success! Formatted policy: ${file}`);
      }),
    );
}
