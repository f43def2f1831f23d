import { ManagedProcess, type ExitInfo, freePort } from '@coffer/testing';
import { api, type ApiClient } from './api';
import { echoLines } from './logs';

export interface DevServer {
  /** http://127.0.0.1:<port> (no /v1) */
  baseUrl: string;
  /** http://127.0.0.1:<port> of the ops listener (GET /health) */
  opsUrl: string;
  rootToken: string;
  /** the single unseal key share, base64, as printed */
  unsealKey: string;
  process: ManagedProcess;
  /** a client holding the root token */
  client: ApiClient;
  /** SIGTERM (graceful), SIGKILL after 10 s */
  stop(): Promise<ExitInfo>;
}

const BANNER_TIMEOUT_MS = 60_000;

/**
 * Starts `npm start`'s entry point (apps/dev/src/main.ts) on free ports and waits for the
 * "Root Token:" line. `env` is merged over the defaults (e.g. COFFER_DEV_ROOT_TOKEN_ID,
 * COFFER_DEV_DATA_DIR).
 */
export async function startDevServer(
  env: Record<string, string> = {},
  opts: { bannerTimeoutMs?: number } = {},
): Promise<DevServer> {
  const bannerTimeoutMs = opts.bannerTimeoutMs ?? BANNER_TIMEOUT_MS;
  const [apiPort, opsPort] = await Promise.all([freePort(), freePort()]);
  const proc = ManagedProcess.launch({
    name: 'dev',
    entry: 'apps/dev/src/main.ts',
    env: {
      COFFER_DEV_LISTEN_ADDRESS: `127.0.0.1:${apiPort}`,
      COFFER_OPS_LISTEN_ADDRESS: `127.0.0.1:${opsPort}`,
      ...env,
    },
    onLine: echoLines('dev'),
  });
  try {
    const unsealLine = await proc.waitForLine(/^Unseal Key: \S+/, bannerTimeoutMs);
    const rootLine = await proc.waitForLine(/^Root Token: \S+/, bannerTimeoutMs);
    const apiLine = await proc.waitForLine(/Api Address: \S+/, bannerTimeoutMs);
    const opsLine = await proc.waitForLine(/Ops Address: \S+/, bannerTimeoutMs);
    const baseUrl = lastWord(apiLine);
    const rootToken = lastWord(rootLine);
    return {
      baseUrl,
      opsUrl: lastWord(opsLine),
      rootToken,
      unsealKey: lastWord(unsealLine),
      process: proc,
      client: api(baseUrl, rootToken),
      stop: () => proc.stop(),
    };
  } catch (err) {
    await proc.stop();
    throw err;
  }
}

function lastWord(line: string): string {
  return line.trim().split(/\s+/).pop() ?? '';
}
