import path from 'node:path';
import { ENGINES, engineNamed } from '@coffer/engines';
import { REPO_ROOT } from '@coffer/testing';
import { appEntry } from '../test/support/launch/cluster-launcher';

/**
 * `npm run start:service -- <name> -config <file>`: one replica of the engine service `<name>`
 * (one of `ENGINES`) in cluster mode, i.e. `apps/<name>/src/main.ts` with the remaining arguments.
 */
const [name, ...rest] = process.argv.slice(2);
const engine = name === undefined ? undefined : engineNamed(name);
if (engine === undefined) {
  console.error(`usage: npm run start:service -- <${ENGINES.map((e) => e.name).join('|')}> -config <file>`);
  process.exit(2);
}
process.argv.splice(2, process.argv.length - 2, ...rest);
void import(path.join(REPO_ROOT, appEntry(engine.name)));
