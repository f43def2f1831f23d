import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  historyContracts as c,
  type CallerContext,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { Caller, Handles } from '@coffer/transport';
import { HistoryProofService } from './history-proof.service';
import { HistoryAccessService } from './history-access.service';
import { HistoryChangesService } from './history-changes.service';
import { HistoryStateService } from './history-state.service';

/** sys/history/* (no logic). */
@Controller()
export class HistoryHandlers {
  constructor(
    private readonly proofs: HistoryProofService,
    private readonly states: HistoryStateService,
    private readonly access: HistoryAccessService,
    private readonly feed: HistoryChangesService,
  ) {}

  @Handles(c.key) key(): Promise<ResponseOf<typeof c.key>> {
    return this.proofs.publicKey();
  }
  @Handles(c.logs) logs(): Promise<ResponseOf<typeof c.logs>> {
    return this.proofs.logs();
  }
  @Handles(c.treeHead) treeHead(
    @Payload() req: RequestOf<typeof c.treeHead>,
  ): Promise<ResponseOf<typeof c.treeHead>> {
    return this.proofs.treeHead(req.query.log, req.query.tree_size);
  }
  @Handles(c.proof) proof(@Payload() req: RequestOf<typeof c.proof>): Promise<ResponseOf<typeof c.proof>> {
    return this.proofs.proof(req.query.log, req.query.wal, req.query.tree_size);
  }
  @Handles(c.consistency) consistency(
    @Payload() req: RequestOf<typeof c.consistency>,
  ): Promise<ResponseOf<typeof c.consistency>> {
    return this.proofs.consistency(req.query.log, req.query.from, req.query.to);
  }
  @Handles(c.changes) changes(
    @Payload() req: RequestOf<typeof c.changes>,
  ): Promise<ResponseOf<typeof c.changes>> {
    return this.feed.changes(req.query);
  }
  @Handles(c.state) state(
    @Payload() req: RequestOf<typeof c.state>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.state>> {
    const { version } = req.query;
    return this.states.state(req.params.path, req.query.at, caller, version === undefined ? {} : { version });
  }
  @Handles(c.stateList) stateList(
    @Payload() req: RequestOf<typeof c.stateList>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.stateList>> {
    return this.states.stateList(req.params.path, req.query.at, caller);
  }
  @Handles(c.explain) explain(
    @Payload() req: RequestOf<typeof c.explain>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.explain>> {
    return this.access.explainAt(req.body, caller.namespace);
  }
  @Handles(c.access) whoCould(
    @Payload() req: RequestOf<typeof c.access>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.access>> {
    return this.access.accessAt(req.body, caller.namespace);
  }
}
