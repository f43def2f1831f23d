import type { Command } from 'commander';
import { action, activity, expectArgs, type CliDeps } from '../core/cli-command';
import type { CliContext } from '../core/cli-context';
import { CliUsageError } from '../core/cli-errors';
import { isObject, type JsonObject } from '../core/cli-format';

interface LoginOpts {
  method: string;
  path?: string;
  noStore?: boolean;
  store?: boolean;
  tokenOnly?: boolean;
  noPrint?: boolean;
  print?: boolean;
}

/**
 * `login`: token (validated with lookup-self), userpass (password prompted with hidden input
 * when not given), approle, or any other method's `auth/<path>/login` with key=value pairs.
 * The token lands in the token helper unless -no-store.
 */
export function registerLoginCommand(program: Command, deps: CliDeps): void {
  program
    .command('login')
    .description('authenticate and store the token in ~/.coffer-token')
    .argument('[token | key=value...]')
    .option('--method <method>', 'token, userpass, approle or another auth method type', 'token')
    .option('--path <path>', 'mount path of the auth method (default: the method name)')
    .option('--no-store', 'do not store the token in the token helper')
    .option('--token-only', 'print only the token')
    .option('--no-print', 'print nothing on success')
    .action(
      action<LoginOpts>(deps, async (ctx, args, opts) => {
        activity.doing = 'authenticating';
        const method = opts.method.toLowerCase();
        const mount = (opts.path ?? method).replace(/^\/+|\/+$/g, '');
        let body: JsonObject | undefined;
        if (method === 'token') {
          expectArgs(args, 0, 1);
          const token =
            args[0] !== undefined && args[0] !== '-'
              ? args[0]
              : (await ctx.ui.promptHidden('Token (will be hidden): ')).trim();
          if (token === '') throw new CliUsageError('no token entered');
          const res = await ctx.http.get('auth/token/lookup-self', { token });
          body = tokenLookupAsAuth(token, res.body);
        } else {
          const data = ctx.keyValues(args);
          let path = `auth/${mount}/login`;
          if (method === 'userpass' || method === 'ldap') {
            const username = data.username;
            if (typeof username !== 'string' || username === '')
              throw new CliUsageError(`-method=${method} needs username=<name>`);
            delete data.username;
            if (data.password === undefined)
              data.password = await ctx.ui.promptHidden('Password (will be hidden): ');
            path = `auth/${mount}/login/${encodeURIComponent(username)}`;
          } else if (method === 'approle') {
            if (data.role_id === undefined) throw new CliUsageError('-method=approle needs role_id=<id>');
          }
          const res = await ctx.http.post(path, data, { token: null });
          body = res.body;
        }
        const auth = body !== undefined && isObject(body.auth) ? body.auth : undefined;
        const clientToken = typeof auth?.client_token === 'string' ? auth.client_token : undefined;
        const wrapped = body !== undefined && isObject(body.wrap_info);
        if (!wrapped && clientToken === undefined) throw new CliUsageError('the server returned no token');
        if (!wrapped && opts.store !== false && clientToken !== undefined) ctx.tokenHelper.store(clientToken);
        if (opts.print === false) return;
        if (opts.tokenOnly === true && clientToken !== undefined) return ctx.ui.printRaw(clientToken);
        if (!ctx.structured && ctx.flags.field === undefined) {
          if (ctx.config.token !== undefined)
            ctx.ui.warn(
              'WARNING! The COFFER_TOKEN (or VAULT_TOKEN) environment variable is set! It takes precedence over ' +
                'the value set by this command. To use the value set by this command, unset the variable or set ' +
                'it to the token shown below.\n',
            );
          if (wrapped) ctx.ui.print('');
          else if (opts.store === false)
            ctx.ui.success(
              'Success! You are now authenticated. The token was not stored in the token helper.\n',
            );
          else
            ctx.ui.success(
              'Success! You are now authenticated. The token information displayed below is already stored in ' +
                'the token helper. You do NOT need to run "coffer login" again. Future requests will automatically ' +
                'use this token.\n',
            );
        }
        ctx.output(body);
      }),
    );
}

/** Vault shows a token login with the same auth table as the other methods, built from lookup-self. */
function tokenLookupAsAuth(token: string, lookup: JsonObject | undefined): JsonObject {
  const d = lookup !== undefined && isObject(lookup.data) ? lookup.data : {};
  return {
    ...(lookup ?? {}),
    data: null,
    auth: {
      client_token: token,
      accessor: d.accessor ?? '',
      policies: d.policies ?? [],
      token_policies: d.policies ?? [],
      identity_policies: d.identity_policies ?? [],
      metadata: d.meta ?? null,
      lease_duration: typeof d.ttl === 'number' ? d.ttl : 0,
      renewable: d.renewable ?? false,
    },
  };
}

export type { CliContext };
