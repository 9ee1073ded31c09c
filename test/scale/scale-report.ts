/** One line of test:scale's table: what was checked, what the run measured, what it must be. */
export interface ScaleCheck {
  check: string;
  measured: string;
  expected: string;
  pass: boolean;
}

/** The checks as an aligned text table (also valid Markdown), a verdict per line. */
export function renderChecks(checks: ScaleCheck[]): string {
  const rows = [
    ['check', 'measured', 'expected', 'verdict'],
    ...checks.map(({ check, measured, expected, pass }) => [
      check,
      measured,
      expected,
      pass ? 'pass' : 'FAIL',
    ]),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const line = (row: string[]): string =>
    `| ${row.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
  return [
    line(rows[0]),
    `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
    ...rows.slice(1).map(line),
  ].join('\n');
}
