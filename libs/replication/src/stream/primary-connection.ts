import { connect, type TLSSocket } from 'node:tls';
import type { ReplicationMode } from '@coffer/contracts/replication';
import type { PrimaryLink } from '../state/replication-state.decider';
import { pskIdentity, splitHostPort } from './cluster-listener';
import { PSK_CIPHERS } from './stream.wire';

/**
 * A secondary's TLS-PSK connection to its primary's cluster address (the stream, the fencing
 * probe, a forwarded write): its pre-shared key identifies it, so the primary refuses a revoked or
 * unknown secondary at the handshake. No certificates: the key is the identity on both sides.
 */
export function connectToPrimary(
  link: Pick<PrimaryLink, 'primaryClusterAddr' | 'secondaryId' | 'psk'>,
  mode: ReplicationMode,
): TLSSocket {
  const [host, port] = splitHostPort(link.primaryClusterAddr);
  return connect({
    host,
    port: Number(port),
    ciphers: PSK_CIPHERS,
    minVersion: 'TLSv1.2',
    maxVersion: 'TLSv1.2',
    checkServerIdentity: () => undefined,
    pskCallback: () => ({
      identity: pskIdentity(mode, link.secondaryId),
      psk: Buffer.from(link.psk, 'base64'),
    }),
  });
}
