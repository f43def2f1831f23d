import type { Command } from 'commander';
import type { CliConfig } from '../cli.config';
import { CliContext, type GlobalFlags } from './cli-context';
import { CliUsageError } from './cli-errors';
import type { Ui } from './cli-ui';

export interface CliDeps {
  config: CliConfig;
  ui: Ui;
}

/** Set by a command before its request so errors read "Error reading secret/foo: ...". */
export const activity = { doing: '' };

/**
 * Wraps a command's handler: builds the context from the global flags, hands over the operands
 * (flat, as typed) and the command's own options.
 */
export function action<O extends object>(
  deps: CliDeps,
  handler: (ctx: CliContext, args: string[], opts: O, cmd: Command) => Promise<void>,
): (...params: unknown[]) => Promise<void> {
  return async (...params: unknown[]) => {
    const cmd = params[params.length - 1] as Command;
    const ctx = new CliContext(deps.config, cmd.optsWithGlobals<GlobalFlags>(), deps.ui);
    await handler(ctx, [...cmd.args], cmd.opts<O>(), cmd);
  };
}

/** Checks the operand count the way Vault does ("Too many arguments (expected 1, got 2)"). */
export function expectArgs(args: readonly string[], min: number, max = min): void {
  if (args.length < min)
    throw new CliUsageError(
      `Not enough arguments (expected ${min === max ? min : `at least ${min}`}, got ${args.length})`,
    );
  if (args.length > max)
    throw new CliUsageError(
      `Too many arguments (expected ${min === max ? max : `at most ${max}`}, got ${args.length})`,
    );
}
