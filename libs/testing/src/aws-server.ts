import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A local IAM + STS that speaks the AWS Query protocol (form-encoded POST, XML answers), for the
 * cloud-b engine driven by the official SDK v3. Every request's SigV4 `Authorization` header is
 * checked: a known access key, the credential scope (date, the expected region, `iam` or `sts`)
 * and the signature itself; refusals answer as AWS does (InvalidClientTokenId,
 * SignatureDoesNotMatch). IAM enforces what makes cleanup order matter (DeleteUser refuses while
 * keys, policies or groups remain: DeleteConflict; two keys a user at most: LimitExceeded).
 * Calls are recorded; faults can be injected per action (an error answer, or no answer at all).
 */
import {
  AwsFault,
  createAwsAccount,
  enc,
  IAM_VERSION,
  isoNoMs,
  STS_VERSION,
  xml,
  type AwsUser,
  type Fault,
} from './aws-server.iam';
import { authenticateSigV4 } from './aws-server.sigv4';

export type { AwsUser } from './aws-server.iam';

/** The ECS-style task role endpoint (AWS_CONTAINER_CREDENTIALS_FULL_URI): the root user's key. */
const CONTAINER_CREDENTIALS_PATH = '/container-credentials';

export interface AwsCall {
  service: 'iam' | 'sts';
  action: string;
  params: Record<string, string>;
  accessKeyId: string;
  region: string;
}

export interface AwsServer {
  /** http://127.0.0.1:<port> (both IAM and STS: the Version parameter tells them apart) */
  url: string;
  /** the IAM user Coffer acts as, and its first key */
  rootUser: string;
  rootAccessKey: string;
  rootSecretKey: string;
  users: Map<string, AwsUser>;
  calls: AwsCall[];
  /** calls refused for their signature or scope */
  refusals: { code: string; message: string }[];
  /** the region every signature must name */
  expectRegion(region: string): void;
  /** adds an IAM group with managed policy ARNs and inline documents */
  addGroup(name: string, attached?: string[], inline?: Record<string, string>): void;
  /** adds an access key to a user (another key for rotate-root to refuse) */
  addKey(user: string): { accessKeyId: string; secretAccessKey: string };
  /** the next `times` calls of `action` answer this error */
  failNext(action: string, fault: Fault, times?: number): void;
  /** calls of `action` get no answer until the returned function is called (or the server stops) */
  hang(action: string): () => void;
  /** calls of `action` are carried out but never answered (a reply lost after the work was done) */
  swallow(action: string, on: boolean): void;
  /** the task-role credentials URL (for AWS_CONTAINER_CREDENTIALS_FULL_URI), and how often it was read */
  containerCredentialsUrl: string;
  containerCalls(): number;
  /** IAM users Coffer created (every user but the root one) */
  createdUsers(): AwsUser[];
  stop(): Promise<void>;
}

export async function startAwsServer(): Promise<AwsServer> {
  const rootUser = 'coffer-root';
  const { users, groups, keys, addKey, perform } = createAwsAccount(rootUser);
  const rootKey = addKey(rootUser);
  const calls: AwsCall[] = [];
  const refusals: { code: string; message: string }[] = [];
  const faults = new Map<string, { fault: Fault; times: number }>();
  const hangs = new Map<string, Set<() => void>>();
  const hanging = new Set<ServerResponse>();
  const swallowed = new Set<string>();
  let containerCalls = 0;
  let region = 'us-east-1';

  const handle = (req: IncomingMessage, res: ServerResponse, body: string): void => {
    const params = Object.fromEntries(new URLSearchParams(body));
    const action = params['Action'] ?? '';
    const service = params['Version'] === STS_VERSION ? 'sts' : 'iam';
    const ns =
      service === 'sts'
        ? `https://sts.amazonaws.com/doc/${STS_VERSION}/`
        : `https://iam.amazonaws.com/doc/${IAM_VERSION}/`;
    const requestId = randomBytes(16).toString('hex');
    const send = (status: number, text: string) => {
      res.writeHead(status, { 'content-type': 'text/xml', 'x-amzn-requestid': requestId });
      res.end(`<?xml version="1.0" encoding="UTF-8"?>\n${text}`);
    };
    const fail = (error: unknown) => {
      const f = error instanceof AwsFault ? error : new AwsFault(500, 'ServiceFailure', String(error));
      if (f.status === 403) refusals.push({ code: f.code, message: f.message });
      send(
        f.status,
        `<ErrorResponse xmlns="${ns}"><Error><Type>${f.status >= 500 ? 'Receiver' : 'Sender'}</Type><Code>${f.code}</Code><Message>${enc(f.message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`,
      );
    };
    const answer = (caller: string) => {
      try {
        const fault = faults.get(action);
        if (fault && fault.times > 0) {
          fault.times--;
          throw new AwsFault(fault.fault.status, fault.fault.code, fault.fault.message);
        }
        const result = perform(service, action, params, caller);
        send(
          200,
          `<${action}Response xmlns="${ns}"><${action}Result>${xml(result)}</${action}Result><ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></${action}Response>`,
        );
      } catch (error) {
        fail(error);
      }
    };
    let caller: string;
    try {
      const who = authenticateSigV4(req, body, service, keys, region);
      caller = keys.get(who.keyId)?.user ?? '';
      calls.push({ service, action, params, accessKeyId: who.keyId, region: who.region });
    } catch (error) {
      fail(error);
      return;
    }
    if (swallowed.has(action)) {
      hanging.add(res);
      try {
        perform(service, action, params, caller);
      } catch {
        // refused: nothing was done, and still no answer
      }
      return;
    }
    const waiting = hangs.get(action);
    if (!waiting) {
      answer(caller);
      return;
    }
    // held: answered (if the client still waits) once released
    hanging.add(res);
    waiting.add(() => {
      hanging.delete(res);
      if (!res.destroyed && !res.writableEnded) answer(caller);
    });
  };

  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'GET' && req.url === CONTAINER_CREDENTIALS_PATH) {
        containerCalls++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            AccessKeyId: rootKey.accessKeyId,
            SecretAccessKey: rootKey.secretAccessKey,
            Token: 'container-session-token',
            Expiration: isoNoMs(new Date(Date.now() + 3600_000)),
          }),
        );
        return;
      }
      handle(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    rootUser,
    rootAccessKey: rootKey.accessKeyId,
    rootSecretKey: rootKey.secretAccessKey,
    users,
    calls,
    refusals,
    expectRegion: (r) => {
      region = r;
    },
    addGroup: (name, attached = [], inline = {}) => {
      groups.set(name, { attached, inline: new Map(Object.entries(inline)) });
    },
    addKey: (user) => addKey(user),
    failNext: (action, fault, times = 1) => {
      faults.set(action, { fault, times });
    },
    hang: (action) => {
      const waiting = new Set<() => void>();
      hangs.set(action, waiting);
      return () => {
        hangs.delete(action);
        for (const release of waiting) release();
      };
    },
    containerCredentialsUrl: `http://127.0.0.1:${port}${CONTAINER_CREDENTIALS_PATH}`,
    containerCalls: () => containerCalls,
    swallow: (action, on) => {
      if (on) swallowed.add(action);
      else swallowed.delete(action);
    },
    createdUsers: () => [...users.values()].filter((u) => u.name !== rootUser),
    stop: async () => {
      for (const res of hanging) res.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
