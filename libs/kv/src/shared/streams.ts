/** Stream names of the kv service's event log. */
export const kvKeyStream = (mountUuid: string, path: string): string => `kv/${mountUuid}/${path}`;
export const kvConfigStream = (mountUuid: string): string => `kv-config/${mountUuid}`;
export const kvMountStream = (mountUuid: string): string => `kv-mount/${mountUuid}`;
export const cubbyholeStream = (tokenRef: string): string => `cubbyhole/${tokenRef}`;
export const cubbyholeSecretStream = (tokenRef: string, mountUuid: string, path: string): string =>
  `cubbyhole/${tokenRef}/${mountUuid}/${path}`;
