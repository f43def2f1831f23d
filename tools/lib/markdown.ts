/** Renders a GitHub-flavoured markdown table; numeric-looking columns are right-aligned. */
export function markdownTable(headers: string[], rows: string[][]): string {
  const numeric = headers.map(
    (_, col) =>
      rows.length > 0 && rows.every((row) => /^[-+]?[\d.,]+( ?[a-z%×x]+)?$|^—$/i.test(row[col] ?? '')),
  );
  const widths = headers.map((h, col) =>
    Math.max(h.length, 3, ...rows.map((row) => (row[col] ?? '').length)),
  );
  const cell = (text: string, col: number) => {
    const width = widths[col] ?? 3;
    return numeric[col] ? text.padStart(width) : text.padEnd(width);
  };
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  const rule = `| ${widths.map((w, col) => (numeric[col] ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`;
  return [line(headers), rule, ...rows.map((row) => line(headers.map((_, col) => row[col] ?? '')))].join(
    '\n',
  );
}

/** 12345.6 -> "12,346"; small values keep one decimal. */
export function formatNumber(value: number, decimals = value < 100 ? 1 : 0): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}
