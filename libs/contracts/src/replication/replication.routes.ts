import { engineContract, type RouteDef, type RouteTable } from '../routes';
import {
  dynamicFilterData,
  mountFilterBody,
  operationTokenAttemptBody,
  operationTokenAttemptRaw,
  operationTokenDeleteBody,
  operationTokenUpdateBody,
  pathsFilterBody,
  pathsFilterData,
  primaryEnableBody,
  promoteBody,
  promoteData,
  publicKeyData,
  replicationStatusData,
  secondaryEnableBody,
  secondaryIdBody,
  secondaryIdParams,
  secondaryTokenBody,
  updatePrimaryBody,
  type ReplicationMode,
} from './replication-fields.schema';

/** The moves both replication modes share (the contract's state table), one subject per mode. */
function modeContracts<const M extends ReplicationMode>(mode: M) {
  const s = `replication.${mode}`;
  return {
    status: engineContract(`${s}.status`, { data: replicationStatusData }),
    primaryEnable: engineContract(`${s}.primary.enable`, { body: primaryEnableBody }),
    primaryDemote: engineContract(`${s}.primary.demote`),
    primaryDisable: engineContract(`${s}.primary.disable`),
    secondaryToken: engineContract(`${s}.primary.secondary-token`, { body: secondaryTokenBody }),
    revokeSecondary: engineContract(`${s}.primary.revoke-secondary`, { body: secondaryIdBody }),
    generatePublicKey: engineContract(`${s}.secondary.generate-public-key`, { data: publicKeyData }),
    secondaryEnable: engineContract(`${s}.secondary.enable`, { body: secondaryEnableBody }),
    secondaryDisable: engineContract(`${s}.secondary.disable`),
  };
}

export const drContracts = {
  ...modeContracts('dr'),
  promote: engineContract('replication.dr.secondary.promote', { body: promoteBody, data: promoteData }),
  updatePrimary: engineContract('replication.dr.secondary.update-primary', { body: updatePrimaryBody }),
  operationTokenRead: engineContract('replication.dr.operation-token.read', {
    raw: operationTokenAttemptRaw,
  }),
  operationTokenStart: engineContract('replication.dr.operation-token.start', {
    body: operationTokenAttemptBody,
    raw: operationTokenAttemptRaw,
  }),
  operationTokenCancel: engineContract('replication.dr.operation-token.cancel'),
  operationTokenUpdate: engineContract('replication.dr.operation-token.update', {
    body: operationTokenUpdateBody,
    raw: operationTokenAttemptRaw,
  }),
  operationTokenDelete: engineContract('replication.dr.operation-token.delete', {
    body: operationTokenDeleteBody,
  }),
};

export const performanceContracts = {
  ...modeContracts('performance'),
  promote: engineContract('replication.performance.secondary.promote', { body: promoteBody }),
  updatePrimary: engineContract('replication.performance.secondary.update-primary', {
    body: secondaryEnableBody,
  }),
  pathsFilterWrite: engineContract('replication.performance.paths-filter.write', {
    params: secondaryIdParams,
    body: pathsFilterBody,
  }),
  pathsFilterRead: engineContract('replication.performance.paths-filter.read', {
    params: secondaryIdParams,
    data: pathsFilterData,
  }),
  pathsFilterDelete: engineContract('replication.performance.paths-filter.delete', {
    params: secondaryIdParams,
  }),
  mountFilterWrite: engineContract('replication.performance.mount-filter.write', {
    params: secondaryIdParams,
    body: mountFilterBody,
  }),
  mountFilterRead: engineContract('replication.performance.mount-filter.read', {
    params: secondaryIdParams,
    data: pathsFilterData,
  }),
  mountFilterDelete: engineContract('replication.performance.mount-filter.delete', {
    params: secondaryIdParams,
  }),
  primaryDynamicFilter: engineContract('replication.performance.primary.dynamic-filter', {
    params: secondaryIdParams,
    data: dynamicFilterData,
  }),
  secondaryDynamicFilter: engineContract('replication.performance.secondary.dynamic-filter', {
    params: secondaryIdParams,
    data: dynamicFilterData,
  }),
};

type ModeContracts = ReturnType<typeof modeContracts>;

/** A POST-only route of the replication API (restricted to the root namespace). */
const post = (pattern: string, synopsis: string, contract: ModeContracts[keyof ModeContracts]): RouteDef => ({
  pattern,
  synopsis,
  restricted: true,
  operations: { update: { contract, summary: synopsis } },
});

function modeRoutes(mode: ReplicationMode, c: ModeContracts): RouteDef[] {
  const base = `replication/${mode}`;
  const name = mode === 'dr' ? 'DR' : 'performance';
  return [
    {
      pattern: `${base}/status`,
      synopsis: `The ${name} replication status of this cluster.`,
      unauthenticated: true,
      operations: { read: { contract: c.status, summary: `Read the ${name} replication status` } },
    },
    post(`${base}/primary/enable`, `Make this cluster a ${name} primary.`, c.primaryEnable),
    post(`${base}/primary/demote`, `Demote this ${name} primary to a secondary.`, c.primaryDemote),
    post(`${base}/primary/disable`, `Disable ${name} replication on this primary.`, c.primaryDisable),
    {
      ...post(`${base}/primary/secondary-token`, 'Issue a secondary activation token.', c.secondaryToken),
      sudo: true,
    },
    post(`${base}/primary/revoke-secondary`, 'Revoke a secondary for good.', c.revokeSecondary),
    post(`${base}/secondary/generate-public-key`, 'Generate the secondary key pair.', c.generatePublicKey),
    post(`${base}/secondary/enable`, `Make this cluster a ${name} secondary.`, c.secondaryEnable),
    post(`${base}/secondary/disable`, `Disable ${name} replication on this secondary.`, c.secondaryDisable),
  ];
}

const dr = drContracts;
const perf = performanceContracts;

/** Vault Enterprise's sys/replication/* API, served by the replication service inside sys/. */
export const replicationRoutes: RouteTable = {
  engine: 'system',
  service: 'replication',
  help: 'Disaster recovery and performance replication between clusters, streamed from the event logs.',
  routes: [
    ...modeRoutes('dr', dr),
    {
      pattern: 'replication/dr/secondary/promote',
      synopsis: 'Promote this DR secondary to primary.',
      restricted: true,
      operations: { update: { contract: dr.promote, summary: 'Promote the DR secondary' } },
    },
    {
      pattern: 'replication/dr/secondary/update-primary',
      synopsis: 'Point this DR secondary at a new primary.',
      restricted: true,
      operations: { update: { contract: dr.updatePrimary, summary: 'Update the primary' } },
    },
    {
      pattern: 'replication/dr/secondary/generate-operation-token/attempt',
      synopsis: 'The DR operation token generation attempt.',
      restricted: true,
      operations: {
        read: { contract: dr.operationTokenRead, summary: 'Read the attempt' },
        update: { contract: dr.operationTokenStart, summary: 'Start an attempt' },
        delete: { contract: dr.operationTokenCancel, summary: 'Cancel the attempt' },
      },
    },
    {
      pattern: 'replication/dr/secondary/generate-operation-token/update',
      synopsis: 'Provide an unseal key share to the DR operation token attempt.',
      restricted: true,
      operations: { update: { contract: dr.operationTokenUpdate, summary: 'Provide a key share' } },
    },
    {
      pattern: 'replication/dr/secondary/operation-token/delete',
      synopsis: 'Revoke a DR operation token.',
      restricted: true,
      operations: { update: { contract: dr.operationTokenDelete, summary: 'Revoke the DR operation token' } },
    },
    ...modeRoutes('performance', perf),
    {
      pattern: 'replication/performance/secondary/promote',
      synopsis: 'Promote this performance secondary to primary.',
      restricted: true,
      operations: { update: { contract: perf.promote, summary: 'Promote the performance secondary' } },
    },
    {
      pattern: 'replication/performance/secondary/update-primary',
      synopsis: 'Point this performance secondary at a new primary.',
      restricted: true,
      operations: { update: { contract: perf.updatePrimary, summary: 'Update the primary' } },
    },
    {
      pattern: 'replication/performance/primary/paths-filter/:id',
      synopsis: 'The paths filter of a performance secondary.',
      restricted: true,
      operations: {
        read: { contract: perf.pathsFilterRead, summary: 'Read the paths filter' },
        update: { contract: perf.pathsFilterWrite, summary: 'Write the paths filter' },
        delete: { contract: perf.pathsFilterDelete, summary: 'Delete the paths filter' },
      },
    },
    {
      pattern: 'replication/performance/primary/mount-filter/:id',
      synopsis: 'The mount filter of a performance secondary (deprecated: a paths filter).',
      restricted: true,
      operations: {
        read: { contract: perf.mountFilterRead, summary: 'Read the mount filter' },
        update: { contract: perf.mountFilterWrite, summary: 'Write the mount filter' },
        delete: { contract: perf.mountFilterDelete, summary: 'Delete the mount filter' },
      },
    },
    {
      pattern: 'replication/performance/primary/dynamic-filter/:id',
      synopsis: 'The mounts and namespaces the primary filters out for a secondary.',
      restricted: true,
      operations: { read: { contract: perf.primaryDynamicFilter, summary: 'Read the dynamic filter' } },
    },
    {
      pattern: 'replication/performance/secondary/dynamic-filter/:id',
      synopsis: 'The mounts and namespaces this secondary does not receive.',
      restricted: true,
      operations: { read: { contract: perf.secondaryDynamicFilter, summary: 'Read the dynamic filter' } },
    },
  ],
};
