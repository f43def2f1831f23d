import { Command, CommanderError } from 'commander';
import { registerCompletionCommand, installCompletion } from './commands/completion.command';
import { registerGenericCommands } from './commands/generic.command';
import { registerHistoryCommands } from './commands/history.command';
import { registerKvCommands } from './commands/kv.command';
import {
  registerLeaseCommands,
  registerNamespaceCommands,
  registerUnwrapCommand,
} from './commands/lease.command';
import { registerLoginCommand } from './commands/login.command';
import {
  registerAuditCommands,
  registerAuthCommands,
  registerSecretsCommands,
} from './commands/mounts.command';
import { registerOperatorCommands, registerStatusCommand } from './commands/operator.command';
import { registerPkiCommands, registerSshCommand } from './commands/pki-ssh.command';
import { registerPluginCommands } from './commands/plugin.command';
import { registerPolicyCommands } from './commands/policy.command';
import { registerServerCommand } from './commands/server.command';
import { registerTokenCommands } from './commands/token.command';
import { normalizeArgv } from './core/cli-args';
import { action, activity, type CliDeps } from './core/cli-command';
import { registerGlobalOptions } from './core/cli-context';
import {
  ApiError,
  CliLocalError,
  CliUsageError,
  ConnectionError,
  EXIT_LOCAL,
  EXIT_OK,
  EXIT_REMOTE,
  hintFor,
} from './core/cli-errors';
import { CurlPrinted } from './core/cli-http';
import { PromptCancelled, type Ui } from './core/cli-ui';

export const CLI_VERSION = '0.1.0';

/** The whole command tree. */
export function buildProgram(deps: CliDeps): Command {
  const program = new Command('coffer');
  program
    .description('Coffer command-line client: a Vault-compatible CLI for the Coffer HTTP API')
    .usage('<command> [args]')
    .exitOverride()
    .showHelpAfterError('(run with -h for usage)')
    .configureOutput({
      writeOut: (s) => deps.ui.streams.stdout.write(s),
      writeErr: (s) => deps.ui.streams.stderr.write(s),
      outputError: (s, write) => write(deps.ui.err.red(s)),
    })
    .helpOption('-h, --help', 'show help')
    // help shows Vault's single-dash spelling; both spellings are accepted
    .configureHelp({ optionTerm: (option) => option.flags.replace(/--/g, '-') });
  registerGlobalOptions(program);
  program.option('--autocomplete-install', 'install shell completion in ~/.bashrc and ~/.zshrc').action(
    action<{ autocompleteInstall?: boolean }>(deps, async (ctx, args, opts) => {
      if (args.length > 0) throw new CliUsageError(`unknown command "${args[0]}"`);
      if (opts.autocompleteInstall === true) {
        const files = installCompletion(ctx.config.home);
        ctx.ui.success(
          `Success! Shell completion installed in ${files.join(' and ')}. Open a new shell to use it.`,
        );
        return;
      }
      program.outputHelp();
    }),
  );
  registerServerCommand(program, deps);
  registerStatusCommand(program, deps);
  registerOperatorCommands(program, deps);
  registerLoginCommand(program, deps);
  registerTokenCommands(program, deps);
  registerPolicyCommands(program, deps);
  registerSecretsCommands(program, deps);
  registerAuthCommands(program, deps);
  registerKvCommands(program, deps);
  registerGenericCommands(program, deps);
  registerLeaseCommands(program, deps);
  registerUnwrapCommand(program, deps);
  registerAuditCommands(program, deps);
  registerNamespaceCommands(program, deps);
  registerPkiCommands(program, deps);
  registerSshCommand(program, deps);
  registerPluginCommands(program, deps);
  registerCompletionCommand(program, deps);
  registerHistoryCommands(program, deps);
  program
    .command('print')
    .description('print local values: `coffer print token`')
    .argument('<what>', 'token')
    .action(
      action(deps, async (ctx, args) => {
        if (args[0] !== 'token') throw new CliUsageError(`unknown value "${args[0]}": use token`);
        ctx.ui.printRaw(ctx.token() ?? '');
      }),
    );
  program
    .command('version')
    .description('print the CLI version')
    .action(
      action(deps, async (ctx) => {
        ctx.ui.print(`Coffer v${CLI_VERSION}`);
      }),
    );
  return program;
}

const VERSION_FLAGS = new Set(['-v', '-version', '--version']);

/** Runs one command line and returns the exit code: 0 ok, 1 local error, 2 server or usage error. */
export async function runCli(argv: readonly string[], deps: CliDeps): Promise<number> {
  const program = buildProgram(deps);
  process.exitCode = undefined;
  // `vault -version` / `vault -v` before any command (after one, -version is kv's flag)
  const args = VERSION_FLAGS.has(argv[0] ?? '') && argv.length === 1 ? ['version'] : argv;
  try {
    await program.parseAsync(normalizeArgv(args), { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT_OK;
  } catch (error) {
    return reportError(error, deps.ui);
  }
}

export function reportError(error: unknown, ui: Ui): number {
  const doing = activity.doing === '' ? '' : ` ${activity.doing}`;
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT_OK;
    // commander has printed the problem already
    return EXIT_REMOTE;
  }
  if (error instanceof CurlPrinted) {
    ui.print(error.command);
    return EXIT_OK;
  }
  if (error instanceof ApiError) {
    ui.error(
      `Error${doing}: Error making API request.\n\nURL: ${error.method} ${error.url}\n${error.message}`,
    );
    const hint = hintFor(error);
    if (hint !== undefined) ui.hint(hint);
    return EXIT_REMOTE;
  }
  if (error instanceof ConnectionError) {
    ui.error(`Error${doing}: ${error.message} (${error.url})`);
    const hint = hintFor(error);
    if (hint !== undefined) ui.hint(hint);
    return EXIT_REMOTE;
  }
  if (error instanceof CliUsageError) {
    ui.error(`Error${doing}: ${error.message}`);
    return EXIT_REMOTE;
  }
  if (error instanceof CliLocalError || error instanceof PromptCancelled) {
    ui.error(`Error${doing}: ${error.message}`);
    return EXIT_LOCAL;
  }
  ui.error(`Error${doing}: ${error instanceof Error ? error.message : String(error)}`);
  return EXIT_LOCAL;
}
