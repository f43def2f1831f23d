import { Injectable } from '@nestjs/common';
import { notFound } from '@coffer/contracts';
import { dynamicFilter } from '../stream/paths-filter';
import { ReplicationSupervisor } from '../stream/replication-supervisor';
import { StreamStatus } from '../stream/stream-status';
import { decide, mountFilterModeToPaths, notPrimary } from './replication-state.decider';
import { ReplicationStateService } from './replication-state.service';

/** Performance replication's paths filters, the deprecated mount filters and the dynamic filters. */
@Injectable()
export class PathsFilterService {
  constructor(
    private readonly states: ReplicationStateService,
    private readonly supervisor: ReplicationSupervisor,
    private readonly live: StreamStatus,
  ) {}

  async write(id: string, mode: string, paths: string[]): Promise<void> {
    await this.states.command('performance', (s) => decide.writePathsFilter(s, id, mode, paths));
    await this.supervisor.refresh();
  }

  async read(id: string): Promise<{ mode: string; paths: string[] }> {
    const s = await this.states.loadPublic('performance');
    if (s.state !== 'primary') throw notPrimary('performance');
    const filter = s.filters[id];
    if (!filter) throw notFound();
    return { mode: filter.mode, paths: filter.paths };
  }

  async delete(id: string): Promise<void> {
    await this.states.command('performance', (s) => decide.deletePathsFilter(s, id));
    await this.supervisor.refresh();
  }

  /** mount-filter: whitelist/blacklist onto allow/deny (Vault moved mount filters to paths filters). */
  writeMountFilter(id: string, mode: string, paths: string[]): Promise<void> {
    return this.write(id, mountFilterModeToPaths(mode), paths);
  }

  async readMountFilter(id: string): Promise<{ mode: string; paths: string[] }> {
    const f = await this.read(id);
    return { mode: f.mode === 'allow' ? 'whitelist' : 'blacklist', paths: f.paths };
  }

  async primaryDynamic(
    id: string,
  ): Promise<{ dynamic_filtered_mounts: string[]; dynamic_filtered_namespaces: string[] }> {
    const s = await this.states.loadPublic('performance');
    if (s.state !== 'primary') throw notPrimary('performance');
    const f = dynamicFilter(s.filters[id], await this.supervisor.mounts());
    return { dynamic_filtered_mounts: f.mounts, dynamic_filtered_namespaces: f.namespaces };
  }

  /** What the primary told this secondary it filters (sent with every heartbeat). */
  async secondaryDynamic(
    id: string,
  ): Promise<{ dynamic_filtered_mounts: string[]; dynamic_filtered_namespaces: string[] }> {
    const s = await this.states.loadPublic('performance');
    if (s.state !== 'secondary' || s.link?.secondaryId !== id) throw notFound();
    const f = this.live.primary('performance').filtered;
    return { dynamic_filtered_mounts: f.mounts, dynamic_filtered_namespaces: f.namespaces };
  }
}
