import 'reflect-metadata';
import path from 'node:path';
import { pgliteSnapshotFile, startPgliteFromSnapshot } from '@coffer/event-store';
import { devAppConfig } from './config';
import type { EarlyDatabase } from './dev-process';

// Cached migrated databases, next to the compile cache of tools/register.js.
const SNAPSHOT_CACHE = path.resolve(__dirname, '..', '..', '..', 'node_modules', '.cache', 'coffer-dev');

/**
 * `npm start` (see `dev-process.ts`). In memory, booting PGlite is the longest step of a start
 * (about a second of WASM, even from the cached migrated snapshot), so its worker thread starts
 * first and boots on the other core while the main thread loads the rest of Coffer: every engine,
 * NestJS and the gateway, another second or more.
 */
function main(): void {
  const config = devAppConfig.loadOrExit({ argv: [] });
  let early: EarlyDatabase | undefined;
  if (config.dataDir === undefined) {
    const snapshotFile = pgliteSnapshotFile(SNAPSHOT_CACHE);
    early = { handle: startPgliteFromSnapshot(snapshotFile), snapshotFile };
  }
  import('./dev-process')
    .then(({ runDevProcess }) => runDevProcess(config, early))
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}

main();
