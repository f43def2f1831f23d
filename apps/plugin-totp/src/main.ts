import { runPlugin } from '@coffer/plugin-sdk';
import { totpPlugin } from '@coffer/plugin-totp';
import { pluginEnv } from './plugin.config';

/** The TOTP secrets engine as an external plugin: started by Coffer from the plugin catalog. */
runPlugin(totpPlugin(), pluginEnv()).catch((error: unknown) => {
  process.stderr.write(`totp plugin failed: ${(error as Error).message}\n`);
  process.exit(1);
});
