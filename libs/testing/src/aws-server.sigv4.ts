import type { IncomingMessage } from 'node:http';
import { AwsFault, hmac, sha256 } from './aws-server.iam';

/**
 * SigV4 as IAM and STS check it: a known key, the scope `<date>/<region>/<service>/aws4_request`,
 * the signature. Answers the caller's key; refusals are AwsFaults worded as AWS words them.
 */
export function authenticateSigV4(
  req: IncomingMessage,
  body: string,
  service: 'iam' | 'sts',
  keys: ReadonlyMap<string, { secret: string }>,
  region: string,
): { keyId: string; region: string } {
  const auth = req.headers.authorization ?? '';
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!m)
    throw new AwsFault(
      403,
      'IncompleteSignature',
      'Authorization header requires a SigV4 Credential, SignedHeaders and Signature.',
    );
  const [, keyId = '', date = '', scopeRegion = '', scopeService = '', signed = '', signature = ''] = m;
  const key = keys.get(keyId);
  if (!key)
    throw new AwsFault(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  if (!amzDate.startsWith(date))
    throw new AwsFault(
      403,
      'SignatureDoesNotMatch',
      `Credential should be scoped to a valid date: ${date} vs ${amzDate}`,
    );
  if (scopeService !== service)
    throw new AwsFault(
      403,
      'SignatureDoesNotMatch',
      `Credential should be scoped to correct service: '${service}'.`,
    );
  if (scopeRegion !== region)
    throw new AwsFault(
      403,
      'SignatureDoesNotMatch',
      `Credential should be scoped to a valid region, not '${scopeRegion}'.`,
    );
  const names = signed.split(';');
  const canonicalHeaders = names
    .map(
      (n) =>
        `${n}:${String(req.headers[n] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  const url = new URL(req.url ?? '/', 'http://x');
  const canonical = [
    req.method ?? 'POST',
    url.pathname,
    [...url.searchParams]
      .sort()
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
      .join('&'),
    canonicalHeaders,
    signed,
    String(req.headers['x-amz-content-sha256'] ?? sha256(body)),
  ].join('\n');
  const scope = `${date}/${scopeRegion}/${scopeService}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  let k = hmac(`AWS4${key.secret}`, date);
  for (const part of [scopeRegion, scopeService, 'aws4_request']) k = hmac(k, part);
  if (hmac(k, toSign).toString('hex') !== signature)
    throw new AwsFault(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided.',
    );
  return { keyId, region: scopeRegion };
}
