/**
 * Vault's jsonx audit format (github.com/jefferai/jsonx EncodeJSONBytes, as the audit formatter
 * calls it): the entry's JSON as IBM JSONx elements, object members sorted by name, without the
 * XML header or the enclosing json:object. Like that library, only member names are XML-escaped
 * (Go's xml.EscapeText); string values are written as they are.
 */

const GO_XML_ESCAPES: Record<string, string> = {
  '"': '&#34;',
  "'": '&#39;',
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '\t': '&#x9;',
  '\n': '&#xA;',
  '\r': '&#xD;',
};

function escapeName(name: string): string {
  return name.replace(/["'&<>\t\n\r]/g, (c) => GO_XML_ESCAPES[c] ?? c);
}

/** Go's sort.Strings: byte-wise order of the UTF-8 encodings. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function element(value: unknown, name: string | undefined): string {
  const attr = name === undefined ? '' : ` name="${escapeName(name)}"`;
  if (value === null || value === undefined) return `<json:null${attr} />`;
  if (typeof value === 'boolean') return `<json:boolean${attr}>${String(value)}</json:boolean>`;
  if (typeof value === 'number') return `<json:number${attr}>${JSON.stringify(value)}</json:number>`;
  if (typeof value === 'string') return `<json:string${attr}>${value}</json:string>`;
  if (Array.isArray(value))
    return `<json:array${attr}>${value.map((v) => element(v, undefined)).join('')}</json:array>`;
  return `<json:object${attr}>${members(value as Record<string, unknown>)}</json:object>`;
}

function members(object: Record<string, unknown>): string {
  return Object.keys(object)
    .sort(byteOrder)
    .map((key) => element(object[key], key))
    .join('');
}

/** The JSONx rendering of one audit entry (a JSON object). */
export function encodeJsonx(entry: Record<string, unknown>): string {
  // a JSON round trip first: what the entry serialises to is what gets rendered
  return members(JSON.parse(JSON.stringify(entry)) as Record<string, unknown>);
}
