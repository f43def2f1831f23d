import { Inject, Injectable } from '@nestjs/common';
import { notFound } from '@coffer/contracts';
import { EventLogReader, type EventStore, type ServiceRuntime } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE, SERVICE_RUNTIME } from '../core-sys.di';
import { entityGroups, evolveGraph, type GroupGraph, type GroupState } from '../identity/group.decider';
import { GROUP_LOG, groupGraphKey } from '../identity/group.events';
import { groupView } from '../identity/group.view';
import { evolve as evolveEntity, type EntityState } from '../identity/identity.decider';
import { entityStream, IDENTITY_LOG } from '../identity/identity.events';
import { entityView, type MountLookup } from '../identity/identity.view';
import { NamespaceRepository } from '../namespaces/namespace.repository';
import { isAuthPath, type MountRecord } from '../mounts/mount.model';
import { HistoryStateRepository } from './history-state.repository';

/** A namespace's group graph is one stream; a snapshot of it is kept every this many events. */
export const GRAPH_SNAPSHOT_EVERY = 32;

/**
 * identity/entity/id/<id> and identity/group/id/<id> as they read at an event of the core_sys
 * log: the entity folded from its stream, the group graph (groups and memberships, one stream
 * per namespace) from its nearest snapshot, with the identity views' own functions.
 */
@Injectable()
export class HistoryIdentity {
  /** the core_sys schema */
  private readonly log: string;

  constructor(
    @Inject(SERVICE_RUNTIME) runtime: Pick<ServiceRuntime, 'schema'>,
    private readonly reader: EventLogReader,
    @Inject(CORE_SYS_EVENT_STORE) private readonly store: EventStore,
    private readonly snapshots: HistoryStateRepository,
    @Inject(NamespaceRepository) private readonly namespaces: Pick<NamespaceRepository, 'idOf'>,
  ) {
    this.log = runtime.schema;
  }

  /** The entity read then; 404 when it did not exist (or was deleted, or merged away) then. */
  async entityAt(
    wal: number,
    ns: string,
    id: string,
    mounts: MountRecord[],
  ): Promise<Record<string, unknown>> {
    let entity: EntityState | null = null;
    for (const event of await this.store.readStream(entityStream(id))) {
      if (event.wal > wal) break;
      entity = evolveEntity(entity, IDENTITY_LOG.decode(event));
    }
    if (!entity || entity.namespace !== ns) throw notFound();
    const { direct, inherited } = entityGroups(await this.graphAt(wal, ns), entity.id);
    return {
      ...entityView(
        entity,
        authMounts(mounts),
        { direct: direct.map((g) => g.id).sort(), inherited: inherited.map((g) => g.id).sort() },
        await this.namespaceId(ns),
      ),
    };
  }

  /** The group read then; 404 when it did not exist then. */
  async groupAt(
    wal: number,
    ns: string,
    id: string,
    mounts: MountRecord[],
  ): Promise<Record<string, unknown>> {
    const graph = await this.graphAt(wal, ns);
    const group = graph.get(id);
    if (!group) throw notFound();
    return { ...groupView(group, graph, authMounts(mounts), await this.namespaceId(ns)) };
  }

  /** A namespace's group graph as of event `wal`: nearest snapshot, then the stream's events. */
  async graphAt(wal: number, ns: string): Promise<GroupGraph> {
    const stream = GROUP_LOG.streamOf(groupGraphKey(ns));
    const version = await this.reader.streamVersionAt(this.log, stream, wal);
    if (version === 0) return new Map();
    const snapshot = await this.snapshots.nearest(stream, version);
    let graph: GroupGraph = snapshot
      ? new Map(JSON.parse(snapshot.state) as [string, GroupState][])
      : new Map();
    const from = (snapshot?.version ?? 0) + 1;
    if (from > version) return graph;
    for (const event of await this.store.readStream(stream, from)) {
      if (event.streamVersion > version) break;
      graph = evolveGraph(graph, GROUP_LOG.decode(event));
      if (event.streamVersion % GRAPH_SNAPSHOT_EVERY === 0) {
        await this.snapshots.save(stream, event.streamVersion, JSON.stringify([...graph.entries()]));
      }
    }
    return graph;
  }

  private async namespaceId(ns: string): Promise<string> {
    // a namespace's id never changes while it exists
    return ns === '' ? 'root' : ((await this.namespaces.idOf(ns)) ?? 'root');
  }
}

/** Path and type of the auth mounts of that moment, by accessor (alias views show them). */
function authMounts(mounts: MountRecord[]): MountLookup {
  const byAccessor = new Map(mounts.filter((m) => isAuthPath(m.path)).map((m) => [m.accessor, m]));
  return (accessor) => {
    const m = byAccessor.get(accessor);
    return m ? { path: m.path, type: m.type } : undefined;
  };
}
