/** One sample of a Prometheus text exposition. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface PromExposition {
  /** metric family name -> type (counter, gauge, histogram, summary, untyped) */
  types: Map<string, string>;
  samples: PromSample[];
  /** the samples of `name` whose labels include `labels` */
  find(name: string, labels?: Record<string, string>): PromSample[];
  /** the one value of `name` with `labels`, or undefined */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  const re = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/gy;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    labels[m[1] as string] = (m[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  if (re.lastIndex !== 0 && re.lastIndex < text.trim().length) throw new Error(`bad labels: ${text}`);
  return labels;
}

/** As Prometheus reads values (Go's ParseFloat): Inf and NaN in any case (prom-client writes "Nan"). */
function parseValue(text: string): number {
  const special = text.toLowerCase();
  if (special === '+inf' || special === 'inf') return Infinity;
  if (special === '-inf') return -Infinity;
  if (special === 'nan') return NaN;
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`bad sample value: ${text}`);
  return value;
}

/**
 * Parses the Prometheus text format (version 0.0.4) strictly enough to catch a malformed
 * exposition: every line is a comment, blank, or `name{labels} value [timestamp]`.
 */
export function parsePrometheusText(text: string): PromExposition {
  const types = new Map<string, string>();
  const samples: PromSample[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type) types.set(type[1] as string, type[2] as string);
      else if (!/^# HELP \S+/.test(line)) throw new Error(`line ${i + 1}: bad comment: ${line}`);
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/.exec(line);
    if (!m) throw new Error(`line ${i + 1}: bad sample: ${line}`);
    samples.push({
      name: m[1] as string,
      labels: parseLabels(m[2] ?? ''),
      value: parseValue(m[3] as string),
    });
  }
  const find = (name: string, labels: Record<string, string> = {}) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return {
    types,
    samples,
    find,
    value: (name, labels) => {
      const found = find(name, labels);
      return found.length === 1 ? found[0]?.value : undefined;
    },
  };
}
