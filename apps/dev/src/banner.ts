export interface BannerInfo {
  apiUrl: string;
  opsUrl: string;
  /** directory of the embedded database; undefined = in memory */
  dataDir: string | undefined;
  version: string;
  unsealKey: string;
  rootToken: string;
}

/**
 * Vault's dev-mode banner, so people and scripts that know `vault server -dev` find the same
 * lines: the configuration block, then exactly `Unseal Key: <base64>` and `Root Token: <token>`.
 */
export function renderBanner(info: BannerInfo): string {
  const storage = info.dataDir === undefined ? 'pglite (in memory)' : `pglite (${info.dataDir})`;
  const persistence =
    info.dataDir === undefined
      ? 'In this mode, Coffer runs entirely in-memory\nand starts unsealed with a single unseal key.'
      : 'In this mode, Coffer keeps its data and its single unseal\nkey in the data directory and unseals itself at start.';
  return [
    '==> Coffer server configuration:',
    '',
    `             Api Address: ${info.apiUrl}`,
    `             Ops Address: ${info.opsUrl}`,
    `                 Storage: ${storage}`,
    '               Transport: in-process',
    `                 Version: Coffer v${info.version}`,
    '',
    '==> Coffer server started! Log data will stream in below:',
    '',
    `WARNING! dev mode is enabled! ${persistence}`,
    '',
    'You may need to set the following environment variables (any Vault-compatible client):',
    '',
    `    $ export VAULT_ADDR='${info.apiUrl}'`,
    '',
    'The unseal key and root token are displayed below in case you want to',
    'seal/unseal the server or re-authenticate.',
    '',
    `Unseal Key: ${info.unsealKey}`,
    `Root Token: ${info.rootToken}`,
    '',
    'Development mode should NOT be used in production installations!',
    '',
  ].join('\n');
}
