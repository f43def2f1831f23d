import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  coreNamespaceLocks,
  namespaceContracts as c,
  type ContractResponse,
  type CallerContext,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { Caller, Handles } from '@coffer/transport';
import { NamespaceLockService } from './namespace-lock.service';
import { NamespaceService } from './namespace.service';

/** sys/namespaces (no logic): the request's namespace is the caller context's. */
@Controller()
export class NamespaceHandlers {
  constructor(
    private readonly namespaces: NamespaceService,
    private readonly locks: NamespaceLockService,
  ) {}

  @Handles(c.apiLock)
  apiLock(
    @Payload() req: RequestOf<typeof c.apiLock>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.apiLock>> {
    return this.locks.lock(caller.namespace, req.params.subpath);
  }

  @Handles(c.apiUnlock)
  apiUnlock(
    @Payload() req: RequestOf<typeof c.apiUnlock>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.apiUnlock>> {
    return this.locks.unlock(caller.namespace, req.params.subpath, req.body.unlock_key, caller.root);
  }

  @Handles(coreNamespaceLocks)
  locked(): Promise<ContractResponse<typeof coreNamespaceLocks>> {
    return this.locks.locked();
  }

  @Handles(c.list)
  list(@Caller() caller: CallerContext): Promise<ResponseOf<typeof c.list>> {
    return this.namespaces.list(caller.namespace);
  }

  @Handles(c.read)
  read(
    @Payload() req: RequestOf<typeof c.read>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.read>> {
    return this.namespaces.read(caller.namespace, req.params.path);
  }

  @Handles(c.create)
  create(
    @Payload() req: RequestOf<typeof c.create>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.create>> {
    return this.namespaces.create(caller.namespace, req.params.path, req.body.custom_metadata);
  }

  @Handles(c.patch)
  patch(
    @Payload() req: RequestOf<typeof c.patch>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.patch>> {
    return this.namespaces.patch(caller.namespace, req.params.path, req.body.custom_metadata);
  }

  @Handles(c.delete)
  delete(
    @Payload() req: RequestOf<typeof c.delete>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof c.delete>> {
    return this.namespaces.delete(caller.namespace, req.params.path);
  }

  @Handles(c.exists)
  exists(
    @Payload() req: RequestOf<typeof c.exists>,
    @Caller() caller: CallerContext,
  ): Promise<{ exists: boolean }> {
    return this.namespaces.exists(caller.namespace, req.params['path'] ?? '');
  }
}
