import { BaseRpcContext } from '@nestjs/microservices';
import type { Headers } from '../transport-types';

/** What a Nest handler served by CofferTransportStrategy gets as its RPC context (`@Ctx()`). */
export class CofferRpcContext extends BaseRpcContext<[Headers, string]> {
  getHeaders(): Headers {
    return this.args[0];
  }

  /** The contract's relative subject, e.g. "kv.v2.data.read". */
  getSubject(): string {
    return this.args[1];
  }
}
