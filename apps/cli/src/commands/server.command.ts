import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Command } from 'commander';
import { action, type CliDeps } from '../core/cli-command';
import { CliUsageError } from '../core/cli-errors';

/** The repository root: apps/cli/src/commands → four levels up. */
const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

/**
 * `server -dev` runs the same entry point as `npm start` (everything in one process, unsealed,
 * root token printed); `server -config=<file>` runs cluster mode on this machine, as
 * `npm run cluster -- --config <file>`. Signals are passed on, the exit code is the server's.
 */
export function registerServerCommand(program: Command, deps: CliDeps): void {
  program
    .command('server')
    .description('start a server: -dev (in-memory, unsealed, like `npm start`) or -config=<file> (cluster)')
    .option('--dev', 'dev mode')
    .option('--dev-root-token-id <id>', 'root token id in dev mode')
    .option('--dev-listen-address <host:port>', 'API listener in dev mode (default 127.0.0.1:8200)')
    .option('--config <file>', 'server config file (cluster mode)')
    .action(
      action<{ dev?: boolean; devRootTokenId?: string; devListenAddress?: string; config?: string }>(
        deps,
        async (ctx, args, opts) => {
          if (args.length > 0) throw new CliUsageError(`Too many arguments (expected 0, got ${args.length})`);
          const env = { ...ctx.config.childEnv };
          let entry: string;
          let extra: string[] = [];
          if (opts.dev === true) {
            entry = path.join(ROOT, 'apps', 'dev', 'src', 'main.ts');
            if (opts.devRootTokenId !== undefined) env.COFFER_DEV_ROOT_TOKEN_ID = opts.devRootTokenId;
            if (opts.devListenAddress !== undefined) env.COFFER_DEV_LISTEN_ADDRESS = opts.devListenAddress;
          } else if (opts.config !== undefined) {
            entry = path.join(ROOT, 'tools', 'cluster-supervisor.ts');
            extra = ['--config', path.resolve(opts.config)];
          } else throw new CliUsageError('give -dev or -config=<file>');
          const child = spawn(
            process.execPath,
            ['-r', path.join(ROOT, 'tools', 'register.js'), entry, ...extra],
            {
              stdio: 'inherit',
              env,
              cwd: ROOT,
            },
          );
          const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
          process.on('SIGINT', forward('SIGINT'));
          process.on('SIGTERM', forward('SIGTERM'));
          process.exitCode = await new Promise<number>((resolve) =>
            child.on('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 0))),
          );
        },
      ),
    );
}
