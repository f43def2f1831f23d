import { loadCliConfig } from './cli.config';
import { runCli } from './cli-program';
import { Ui } from './core/cli-ui';

/** `coffer`: apps/cli/bin/coffer.js loads this through the repo's TypeScript register hook. */
async function main(): Promise<void> {
  const config = loadCliConfig();
  const ui = new Ui({ stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }, config.noColor);
  const code = await runCli(process.argv.slice(2), { config, ui });
  process.exitCode = code;
}

void main();
