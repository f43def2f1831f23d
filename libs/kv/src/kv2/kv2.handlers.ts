import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { kvV2, type EngineRequest, type EngineResponse } from '@coffer/contracts';
import { Handles } from '@coffer/transport';
import { kv2InvalidPath } from '../shared/engine-request';
import { Kv2ConfigService } from './kv2-config.service';
import { Kv2DataService } from './kv2-data.service';
import { Kv2MetadataService } from './kv2-metadata.service';
import { Kv2VersionsService } from './kv2-versions.service';

/** Transport handlers of kv v2 (no logic: one service call each). */
@Controller()
export class Kv2ConfigHandlers {
  constructor(private readonly config: Kv2ConfigService) {}

  @Handles(kvV2.configRead)
  read(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.config.read(req);
  }

  @Handles(kvV2.configWrite)
  write(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.config.write(req);
  }
}

@Controller()
export class Kv2DataHandlers {
  constructor(private readonly data: Kv2DataService) {}

  @Handles(kvV2.dataRead)
  read(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.data.read(req);
  }

  @Handles(kvV2.dataWrite)
  write(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.data.write(req);
  }

  @Handles(kvV2.dataPatch)
  patch(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.data.patch(req);
  }

  @Handles(kvV2.dataDelete)
  delete(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.data.deleteLatest(req);
  }

  @Handles(kvV2.dataExists)
  exists(@Payload() req: EngineRequest): Promise<{ exists: boolean }> {
    return this.data.exists(req);
  }

  @Handles(kvV2.subkeysRead)
  subkeys(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.data.subkeys(req);
  }
}

@Controller()
export class Kv2VersionsHandlers {
  constructor(private readonly versions: Kv2VersionsService) {}

  @Handles(kvV2.versionsDelete)
  delete(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.versions.delete(req);
  }

  @Handles(kvV2.versionsUndelete)
  undelete(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.versions.undelete(req);
  }

  @Handles(kvV2.versionsDestroy)
  destroy(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.versions.destroy(req);
  }
}

@Controller()
export class Kv2MetadataHandlers {
  constructor(private readonly metadata: Kv2MetadataService) {}

  @Handles(kvV2.metadataRead)
  read(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.metadata.read(req);
  }

  @Handles(kvV2.metadataWrite)
  write(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.metadata.write(req);
  }

  @Handles(kvV2.metadataPatch)
  patch(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.metadata.patch(req);
  }

  @Handles(kvV2.metadataDelete)
  delete(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.metadata.delete(req);
  }

  @Handles(kvV2.metadataList)
  list(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return this.metadata.list(req);
  }

  @Handles(kvV2.metadataExists)
  exists(@Payload() req: EngineRequest): Promise<{ exists: boolean }> {
    return this.metadata.exists(req);
  }

  /** Any other path of a kv v2 mount. */
  @Handles(kvV2.invalidPath)
  invalid(@Payload() req: EngineRequest): Promise<EngineResponse> {
    return Promise.reject(kv2InvalidPath(req.operation, req.path));
  }
}
