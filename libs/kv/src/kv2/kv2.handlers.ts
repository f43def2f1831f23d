import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  engineHistoryState,
  kvV2,
  type EngineHistoryStateRequest,
  type EngineHistoryStateResponse,
  type EngineRequest,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { Handles } from '@coffer/transport';
import { kv2InvalidPath } from '../shared/engine-request';
import { Kv2ConfigService } from './kv2-config.service';
import { Kv2DataService } from './kv2-data.service';
import { Kv2HistoryService } from './kv2-history.service';
import { Kv2MetadataService } from './kv2-metadata.service';
import { Kv2VersionsService } from './kv2-versions.service';

/** Transport handlers of kv v2 (no logic: one service call each, on the contract's parsed request). */
@Controller()
export class Kv2ConfigHandlers {
  constructor(private readonly config: Kv2ConfigService) {}

  @Handles(kvV2.configRead)
  read(@Payload() req: RequestOf<typeof kvV2.configRead>): Promise<ResponseOf<typeof kvV2.configRead>> {
    return this.config.read(req);
  }

  @Handles(kvV2.configWrite)
  write(@Payload() req: RequestOf<typeof kvV2.configWrite>): Promise<ResponseOf<typeof kvV2.configWrite>> {
    return this.config.write(req);
  }
}

@Controller()
export class Kv2DataHandlers {
  constructor(private readonly data: Kv2DataService) {}

  @Handles(kvV2.dataRead)
  read(@Payload() req: RequestOf<typeof kvV2.dataRead>): Promise<ResponseOf<typeof kvV2.dataRead>> {
    return this.data.read(req);
  }

  @Handles(kvV2.dataWrite)
  write(@Payload() req: RequestOf<typeof kvV2.dataWrite>): Promise<ResponseOf<typeof kvV2.dataWrite>> {
    return this.data.write(req);
  }

  @Handles(kvV2.dataPatch)
  patch(@Payload() req: RequestOf<typeof kvV2.dataPatch>): Promise<ResponseOf<typeof kvV2.dataPatch>> {
    return this.data.patch(req);
  }

  @Handles(kvV2.dataDelete)
  delete(@Payload() req: RequestOf<typeof kvV2.dataDelete>): Promise<ResponseOf<typeof kvV2.dataDelete>> {
    return this.data.deleteLatest(req);
  }

  @Handles(kvV2.dataExists)
  exists(@Payload() req: EngineRequest): Promise<{ exists: boolean }> {
    return this.data.exists(req);
  }

  @Handles(kvV2.subkeysRead)
  subkeys(@Payload() req: RequestOf<typeof kvV2.subkeysRead>): Promise<ResponseOf<typeof kvV2.subkeysRead>> {
    return this.data.subkeys(req);
  }
}

@Controller()
export class Kv2VersionsHandlers {
  constructor(private readonly versions: Kv2VersionsService) {}

  @Handles(kvV2.versionsDelete)
  delete(
    @Payload() req: RequestOf<typeof kvV2.versionsDelete>,
  ): Promise<ResponseOf<typeof kvV2.versionsDelete>> {
    return this.versions.delete(req);
  }

  @Handles(kvV2.versionsUndelete)
  undelete(
    @Payload() req: RequestOf<typeof kvV2.versionsUndelete>,
  ): Promise<ResponseOf<typeof kvV2.versionsUndelete>> {
    return this.versions.undelete(req);
  }

  @Handles(kvV2.versionsDestroy)
  destroy(
    @Payload() req: RequestOf<typeof kvV2.versionsDestroy>,
  ): Promise<ResponseOf<typeof kvV2.versionsDestroy>> {
    return this.versions.destroy(req);
  }
}

@Controller()
export class Kv2MetadataHandlers {
  constructor(private readonly metadata: Kv2MetadataService) {}

  @Handles(kvV2.metadataRead)
  read(@Payload() req: RequestOf<typeof kvV2.metadataRead>): Promise<ResponseOf<typeof kvV2.metadataRead>> {
    return this.metadata.read(req);
  }

  @Handles(kvV2.metadataWrite)
  write(
    @Payload() req: RequestOf<typeof kvV2.metadataWrite>,
  ): Promise<ResponseOf<typeof kvV2.metadataWrite>> {
    return this.metadata.write(req);
  }

  @Handles(kvV2.metadataPatch)
  patch(
    @Payload() req: RequestOf<typeof kvV2.metadataPatch>,
  ): Promise<ResponseOf<typeof kvV2.metadataPatch>> {
    return this.metadata.patch(req);
  }

  @Handles(kvV2.metadataDelete)
  delete(
    @Payload() req: RequestOf<typeof kvV2.metadataDelete>,
  ): Promise<ResponseOf<typeof kvV2.metadataDelete>> {
    return this.metadata.delete(req);
  }

  @Handles(kvV2.metadataList)
  list(@Payload() req: RequestOf<typeof kvV2.metadataList>): Promise<ResponseOf<typeof kvV2.metadataList>> {
    return this.metadata.list(req);
  }

  @Handles(kvV2.metadataExists)
  exists(@Payload() req: EngineRequest): Promise<{ exists: boolean }> {
    return this.metadata.exists(req);
  }

  /** Any other path of a kv v2 mount. */
  @Handles(kvV2.invalidPath)
  invalid(@Payload() req: RequestOf<typeof kvV2.invalidPath>): Promise<ResponseOf<typeof kvV2.invalidPath>> {
    return Promise.reject(kv2InvalidPath(req.operation, req.path));
  }
}

/** kv.history.state: a kv v2 path at an instant, asked by core-sys's sys/history/state. */
@Controller()
export class Kv2HistoryHandlers {
  constructor(private readonly history: Kv2HistoryService) {}

  @Handles(engineHistoryState('kv'))
  state(@Payload() req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse> {
    return this.history.state(req);
  }
}
