/**
 * RFC 4180 CSV: fields separated by commas (or the first line's semicolons or tabs, as
 * spreadsheet exports in some locales write them), quoted with `"` (doubled inside),
 * records ending in CRLF or LF, a byte-order mark ignored. Answers each record after the
 * header as `{header: value}` with its line number (1-based, the header being line 1);
 * blank lines are skipped.
 */
export function parseCsv(text: string): { line: number; fields: Record<string, string> }[] {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const firstLine = body.slice(0, body.search(/\r?\n|$/));
  const separator = [',', ';', '\t'].reduce((best, candidate) =>
    firstLine.split(candidate).length > firstLine.split(best).length ? candidate : best,
  );
  const records = splitRecords(body, separator);
  const [header, ...rows] = records;
  if (header === undefined) return [];
  const names = header.values.map((name) => name.trim());
  return rows
    .filter((row) => row.values.some((value) => value.trim() !== ''))
    .map((row) => ({
      line: row.line,
      fields: Object.fromEntries(names.map((name, i) => [name, row.values[i] ?? ''])),
    }));
}

function splitRecords(text: string, separator: string): { line: number; values: string[] }[] {
  const records: { line: number; values: string[] }[] = [];
  let values: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') {
        quoted = false;
      } else {
        if (char === '\n') line++;
        field += char;
      }
    } else if (char === '"' && field === '') {
      quoted = true;
    } else if (char === separator) {
      values.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      values.push(field);
      records.push({ line: recordLine, values });
      values = [];
      field = '';
      line++;
      recordLine = line;
    } else {
      field += char;
    }
  }
  if (field !== '' || values.length > 0) {
    values.push(field);
    records.push({ line: recordLine, values });
  }
  return records;
}
