import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { action, expectArgs, type CliDeps } from '../core/cli-command';
import { CliUsageError } from '../core/cli-errors';

/** Every command path ("", "kv", "kv metadata") with the words that may follow it. */
export function completionTable(program: Command): Map<string, string[]> {
  const table = new Map<string, string[]>();
  const globals = program.options
    .map((o) => `-${(o.long ?? '').replace(/^--/, '')}`)
    .filter((o) => o !== '-');
  const walk = (cmd: Command, prefix: string) => {
    const words = [
      ...cmd.commands.map((c) => c.name()),
      ...cmd.options.map((o) => `-${(o.long ?? '').replace(/^--/, '')}`).filter((o) => o !== '-'),
      ...globals,
    ];
    table.set(
      prefix,
      [...new Set(words)].filter((w) => w !== 'help'),
    );
    for (const sub of cmd.commands) walk(sub, prefix === '' ? sub.name() : `${prefix} ${sub.name()}`);
  };
  walk(program, '');
  return table;
}

/**
 * A bash completion script generated from the command tree (zsh loads it through bashcompinit):
 * it walks the words typed so far to the deepest known command and offers its subcommands and
 * flags, in Vault's single-dash spelling.
 */
export function completionScript(program: Command, shell: 'bash' | 'zsh'): string {
  const cases = [...completionTable(program)]
    .map(([prefix, words]) => `    "${prefix}") echo "${words.join(' ')}" ;;`)
    .join('\n');
  const body = `_coffer_words() {
  case "$1" in
${cases}
  esac
}
_coffer() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prefix="" w next i
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ $w == -* ]] && continue
    next="\${prefix:+$prefix }$w"
    [[ -n "$(_coffer_words "$next")" ]] && prefix="$next"
  done
  COMPREPLY=($(compgen -W "$(_coffer_words "$prefix")" -- "$cur"))
}
complete -o default -F _coffer coffer
`;
  if (shell === 'bash') return `# coffer completion for bash: source <(coffer completion bash)\n${body}`;
  return `# coffer completion for zsh: source <(coffer completion zsh)\nautoload -U +X bashcompinit && bashcompinit\n${body}`;
}

const RC_FILES = { bash: '.bashrc', zsh: '.zshrc' } as const;

/** Appends the sourcing line to ~/.bashrc and ~/.zshrc (once), as `vault -autocomplete-install`. */
export function installCompletion(home: string): string[] {
  const done: string[] = [];
  for (const [shell, file] of Object.entries(RC_FILES)) {
    const rc = path.join(home, file);
    const line = `source <(coffer completion ${shell})`;
    let current = '';
    try {
      current = readFileSync(rc, 'utf8');
    } catch {
      current = '';
    }
    if (!current.includes(line)) appendFileSync(rc, `\n# coffer shell completion\n${line}\n`);
    done.push(rc);
  }
  return done;
}

export function registerCompletionCommand(program: Command, deps: CliDeps): void {
  program
    .command('completion')
    .description('print the shell completion script: source <(coffer completion bash|zsh)')
    .argument('<shell>', 'bash or zsh')
    .action(
      action(deps, async (ctx, args) => {
        expectArgs(args, 1);
        const shell = args[0];
        if (shell !== 'bash' && shell !== 'zsh')
          throw new CliUsageError(`unsupported shell "${shell}": use bash or zsh`);
        ctx.ui.print(completionScript(program, shell));
      }),
    );
}
