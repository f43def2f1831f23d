import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FakeApplication, FakeAzure, FakeRoleAssignment } from './azure-server';

/** Microsoft Graph v1.0 and Resource Manager of the local Azure (see azure-server.ts); callers check the bearer token. */

export const json = (res: ServerResponse, status: number, body?: unknown): void => {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  res
    .writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
    .end(text);
};
export const graphError = (res: ServerResponse, status: number, code: string, message: string): void =>
  json(res, status, { error: { code, message } });

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function parseJson(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** `displayName eq 'x'` / `appId eq 'x'` / `roleName eq 'x'` of an OData $filter. */
export function eqFilter(filter: string | null, field: string): string | undefined {
  if (!filter) return undefined;
  const m = new RegExp(`^${field} eq '((?:[^']|'')*)'$`).exec(filter.trim());
  return m ? m[1]!.replace(/''/g, "'") : undefined;
}

export async function serveGraph(
  azure: FakeAzure,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  text: string,
): Promise<void> {
  const method = req.method ?? 'GET';
  const path = decodeURIComponent(url.pathname);
  const body = parseJson(text);
  const seg = path.split('/').filter(Boolean); // ["v1.0", "applications", id, "addPassword"]
  if (seg[0] !== 'v1.0') return graphError(res, 404, 'BadRequest', 'Invalid version.');
  const [, collection, id, action, sub, ref] = seg;
  const appView = (a: FakeApplication) => ({
    id: a.id,
    appId: a.appId,
    displayName: a.displayName,
    passwordCredentials: a.passwords.map((p) => ({
      keyId: p.keyId,
      displayName: p.displayName,
      endDateTime: p.endDateTime,
      hint: p.secret.slice(0, 3),
      secretText: null,
    })),
  });
  if (collection === 'applications') {
    if (!id && method === 'POST') {
      const app: FakeApplication = {
        id: randomUUID(),
        appId: randomUUID(),
        displayName: typeof body.displayName === 'string' ? body.displayName : '',
        passwords: [],
      };
      azure.applications.set(app.id, app);
      return json(res, 201, appView(app));
    }
    if (!id && method === 'GET') {
      const name = eqFilter(url.searchParams.get('$filter'), 'displayName');
      const apps = [...azure.applications.values()].filter(
        (a) => name === undefined || a.displayName === name,
      );
      return json(res, 200, { value: apps.map(appView) });
    }
    const app = id ? azure.applications.get(id) : undefined;
    if (!app)
      return graphError(
        res,
        404,
        'Request_ResourceNotFound',
        `Resource '${id}' does not exist or one of its queried reference-property objects are not present.`,
      );
    if (!action && method === 'GET') return json(res, 200, appView(app));
    if (!action && method === 'DELETE') {
      azure.applications.delete(app.id);
      for (const sp of [...azure.servicePrincipals.values()].filter((s) => s.appId === app.appId)) {
        azure.servicePrincipals.delete(sp.id);
        for (const g of azure.groups.values()) g.members.delete(sp.id);
      }
      return json(res, 204);
    }
    if (action === 'addPassword' && method === 'POST') {
      const cred = (body.passwordCredential ?? {}) as Record<string, unknown>;
      const password = {
        keyId: randomUUID(),
        displayName: typeof cred.displayName === 'string' ? cred.displayName : '',
        endDateTime: typeof cred.endDateTime === 'string' ? cred.endDateTime : '',
        secret: `${randomBytes(3).toString('hex').slice(0, 3)}8Q~${randomBytes(27).toString('base64url')}`,
      };
      app.passwords.push(password);
      return json(res, 200, {
        keyId: password.keyId,
        displayName: password.displayName,
        endDateTime: password.endDateTime,
        hint: password.secret.slice(0, 3),
        secretText: password.secret,
      });
    }
    if (action === 'removePassword' && method === 'POST') {
      const before = app.passwords.length;
      app.passwords = app.passwords.filter((p) => p.keyId !== body.keyId);
      if (app.passwords.length === before)
        return graphError(
          res,
          404,
          'Request_ResourceNotFound',
          `No password credential found with keyId ${String(body.keyId)}`,
        );
      return json(res, 204);
    }
  }
  if (collection === 'servicePrincipals') {
    if (!id && method === 'POST') {
      const appId = typeof body.appId === 'string' ? body.appId : '';
      if (![...azure.applications.values()].some((a) => a.appId === appId))
        return graphError(
          res,
          400,
          'Request_BadRequest',
          `The appId '${appId}' of the service principal does not reference a valid application object.`,
        );
      const sp = { id: randomUUID(), appId };
      azure.servicePrincipals.set(sp.id, sp);
      return json(res, 201, sp);
    }
    if (!id && method === 'GET') {
      const appId = eqFilter(url.searchParams.get('$filter'), 'appId');
      return json(res, 200, {
        value: [...azure.servicePrincipals.values()].filter((s) => appId === undefined || s.appId === appId),
      });
    }
  }
  if (collection === 'groups') {
    if (!id && method === 'GET') {
      const name = eqFilter(url.searchParams.get('$filter'), 'displayName');
      const groups = [...azure.groups.values()].filter((g) => name === undefined || g.displayName === name);
      return json(res, 200, { value: groups.map((g) => ({ id: g.id, displayName: g.displayName })) });
    }
    const group = id ? azure.groups.get(id) : undefined;
    if (!group)
      return graphError(
        res,
        404,
        'Request_ResourceNotFound',
        `Resource '${id}' does not exist or one of its queried reference-property objects are not present.`,
      );
    if (!action && method === 'GET') return json(res, 200, { id: group.id, displayName: group.displayName });
    if (action === 'members' && sub === '$ref' && method === 'POST') {
      const member =
        /\/directoryObjects\/([^/]+)$/.exec(
          typeof body['@odata.id'] === 'string' ? body['@odata.id'] : '',
        )?.[1] ?? '';
      if (!azure.servicePrincipals.has(member))
        return graphError(
          res,
          404,
          'Request_ResourceNotFound',
          `Resource '${member}' does not exist or one of its queried reference-property objects are not present.`,
        );
      if (group.members.has(member))
        return graphError(
          res,
          400,
          'Request_BadRequest',
          "One or more added object references already exist for the following modified properties: 'members'.",
        );
      group.members.add(member);
      return json(res, 204);
    }
    if (action === 'members' && sub && ref === '$ref' && method === 'DELETE') {
      if (!group.members.delete(sub))
        return graphError(res, 404, 'Request_ResourceNotFound', `Resource '${sub}' does not exist.`);
      return json(res, 204);
    }
  }
  graphError(res, 400, 'BadRequest', `Unsupported request: ${method} ${path}`);
}

export async function serveArm(
  azure: FakeAzure,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  text: string,
): Promise<void> {
  const method = req.method ?? 'GET';
  const path = decodeURIComponent(url.pathname);
  if (!url.searchParams.get('api-version'))
    return graphError(
      res,
      400,
      'MissingApiVersionParameter',
      'The api-version query parameter (?api-version=) is required for all requests.',
    );
  const body = parseJson(text);
  const defs = /^(.*)\/providers\/Microsoft\.Authorization\/roleDefinitions(?:\/([^/]+))?$/i.exec(path);
  if (defs && method === 'GET') {
    if (defs[2]) {
      const def = azure.roleDefinitions.find(
        (d) => d.id.toLowerCase() === path.toLowerCase() || d.id.endsWith(`/${defs[2]}`),
      );
      if (!def)
        return graphError(
          res,
          404,
          'RoleDefinitionDoesNotExist',
          'The specified role definition does not exist.',
        );
      return json(res, 200, {
        id: def.id,
        name: def.id.split('/').pop(),
        properties: { roleName: def.roleName },
      });
    }
    const name = eqFilter(url.searchParams.get('$filter'), 'roleName');
    const found = azure.roleDefinitions.filter((d) => name === undefined || d.roleName === name);
    return json(res, 200, {
      value: found.map((d) => ({
        id: d.id,
        name: d.id.split('/').pop(),
        properties: { roleName: d.roleName },
      })),
    });
  }
  const assignment = /^(.*)\/providers\/Microsoft\.Authorization\/roleAssignments\/([^/]+)$/i.exec(path);
  if (assignment) {
    if (method === 'PUT') {
      const props = (body.properties ?? {}) as Record<string, unknown>;
      const principalId = typeof props.principalId === 'string' ? props.principalId : '';
      if (!azure.servicePrincipals.has(principalId))
        return graphError(
          res,
          400,
          'PrincipalNotFound',
          `Principal ${principalId} does not exist in the directory ${azure.tenantId}.`,
        );
      if (!azure.roleDefinitions.some((d) => d.id === props.roleDefinitionId))
        return graphError(
          res,
          400,
          'RoleDefinitionDoesNotExist',
          'The specified role definition does not exist.',
        );
      if (azure.roleAssignments.has(path))
        return graphError(res, 409, 'RoleAssignmentExists', 'The role assignment already exists.');
      const a: FakeRoleAssignment = {
        id: path,
        scope: assignment[1]!,
        roleDefinitionId: String(props.roleDefinitionId),
        principalId,
      };
      azure.roleAssignments.set(path, a);
      return json(res, 201, {
        id: a.id,
        name: assignment[2],
        properties: { scope: a.scope, roleDefinitionId: a.roleDefinitionId, principalId },
      });
    }
    if (method === 'DELETE') {
      const a = azure.roleAssignments.get(path);
      if (!a) return json(res, 204);
      azure.roleAssignments.delete(path);
      return json(res, 200, {
        id: a.id,
        properties: { scope: a.scope, roleDefinitionId: a.roleDefinitionId, principalId: a.principalId },
      });
    }
  }
  graphError(res, 400, 'BadRequest', `Unsupported request: ${method} ${path}`);
}
