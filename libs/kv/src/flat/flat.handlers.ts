import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  cubbyhole,
  invalidRequest,
  kvV1,
  type CallerContext,
  type EngineRequest,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { Caller, Handles } from '@coffer/transport';
import { FlatSecretService } from './flat-secret.service';
import type { FlatScope } from './flat.repository';

const kvScope = (req: Pick<EngineRequest, 'mount'>): FlatScope => ({ mountUuid: req.mount.uuid, owner: '' });

/** A cubbyhole belongs to the calling token; a request without one has no cubbyhole. */
function cubbyholeScope(req: Pick<EngineRequest, 'mount'>, caller: CallerContext): FlatScope {
  if (!caller.tokenRef) throw invalidRequest('client token empty');
  // Vault's router: a batch token (the one kind without an accessor) has no cubbyhole.
  if (!caller.accessor)
    throw invalidRequest("cubbyhole operations are only supported by 'service' type tokens");
  return { mountUuid: req.mount.uuid, owner: caller.tokenRef };
}

/** Transport handlers of kv v1 (no logic). */
@Controller()
export class Kv1Handlers {
  constructor(private readonly secrets: FlatSecretService) {}

  @Handles(kvV1.read)
  read(@Payload() req: RequestOf<typeof kvV1.read>): Promise<ResponseOf<typeof kvV1.read>> {
    return this.secrets.read('kv', kvScope(req), req);
  }

  @Handles(kvV1.write)
  write(@Payload() req: RequestOf<typeof kvV1.write>): Promise<ResponseOf<typeof kvV1.write>> {
    return this.secrets.write('kv', kvScope(req), req);
  }

  @Handles(kvV1.delete)
  delete(@Payload() req: RequestOf<typeof kvV1.delete>): Promise<ResponseOf<typeof kvV1.delete>> {
    return this.secrets.delete('kv', kvScope(req), req);
  }

  @Handles(kvV1.list)
  list(@Payload() req: RequestOf<typeof kvV1.list>): Promise<ResponseOf<typeof kvV1.list>> {
    return this.secrets.list(kvScope(req), req);
  }

  @Handles(kvV1.exists)
  exists(@Payload() req: EngineRequest): Promise<{ exists: boolean }> {
    return this.secrets.exists(kvScope(req), req);
  }
}

/** Transport handlers of cubbyhole (no logic): the scope is the caller's token ref. */
@Controller()
export class CubbyholeHandlers {
  constructor(private readonly secrets: FlatSecretService) {}

  @Handles(cubbyhole.read)
  read(
    @Payload() req: RequestOf<typeof cubbyhole.read>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof cubbyhole.read>> {
    return this.secrets.read('cubbyhole', cubbyholeScope(req, caller), req);
  }

  @Handles(cubbyhole.write)
  write(
    @Payload() req: RequestOf<typeof cubbyhole.write>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof cubbyhole.write>> {
    return this.secrets.write('cubbyhole', cubbyholeScope(req, caller), req);
  }

  @Handles(cubbyhole.delete)
  delete(
    @Payload() req: RequestOf<typeof cubbyhole.delete>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof cubbyhole.delete>> {
    return this.secrets.delete('cubbyhole', cubbyholeScope(req, caller), req);
  }

  @Handles(cubbyhole.list)
  list(
    @Payload() req: RequestOf<typeof cubbyhole.list>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<typeof cubbyhole.list>> {
    return this.secrets.list(cubbyholeScope(req, caller), req);
  }

  @Handles(cubbyhole.exists)
  exists(@Payload() req: EngineRequest, @Caller() caller: CallerContext): Promise<{ exists: boolean }> {
    return this.secrets.exists(cubbyholeScope(req, caller), req);
  }
}
