import { Injectable } from '@nestjs/common';
import { AggregateWriter, versionAfter, type AppendedOf, type Projection } from '@coffer/event-store';
import type { CoreSysTrx } from '../core-sys.table';
import { foldGraph, type GroupGraph } from './group.decider';
import type { GROUP_EVENT_TYPES } from './group.events';
import { GroupRepository } from './group.repository';

type GroupEvents = typeof GROUP_EVENT_TYPES;

export interface GroupAppendResult {
  before: GroupGraph;
  after: GroupGraph;
}

/** The fold of a namespace's group graph into the read model, in the append's transaction. */
@Injectable()
export class GroupProjection implements Projection<GroupEvents, GroupAppendResult, string> {
  constructor(private readonly repo: GroupRepository) {}

  async apply(trx: CoreSysTrx, events: AppendedOf<GroupEvents>[], key: string): Promise<GroupAppendResult> {
    const { graph: before } = await this.repo.graph(key, trx);
    const after = foldGraph(before, events);
    if (events.length > 0) await this.repo.saveGraph(trx, key, before, after, versionAfter(events));
    return { before, after };
  }
}

/** Every group write: `append(groupGraphKey(namespace), graphVersion, events)`. */
export abstract class GroupEventLog extends AggregateWriter<GroupEvents, GroupAppendResult, string> {}
