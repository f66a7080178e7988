export interface HeaderRow {
  name: string;
  value: string;
}

export function headersToRows(headers: Record<string, string>): HeaderRow[] {
  return Object.entries(headers).map(([name, value]) => ({ name, value }));
}

/** The rows with a name, as the API's `headers` object. */
export function rowsToHeaders(rows: HeaderRow[]): Record<string, string> {
  return Object.fromEntries(rows.filter((row) => row.name.trim() !== '').map((row) => [row.name.trim(), row.value]));
}

/** Custom headers sent with each delivery: name/value rows, added and removed one by one. */
export function HeadersEditor({ rows, onChange }: { rows: HeaderRow[]; onChange: (rows: HeaderRow[]) => void }) {
  const update = (index: number, change: Partial<HeaderRow>) =>
    onChange(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  return (
    <fieldset className="field">
      <legend>Custom headers (optional)</legend>
      {rows.map((row, index) => (
        <div key={index} className="actions" style={{ marginBottom: 6 }}>
          <input aria-label={`Header ${index + 1} name`} placeholder="X-Source" value={row.name} onChange={(e) => update(index, { name: e.target.value })} />
          <input aria-label={`Header ${index + 1} value`} placeholder="value" value={row.value} onChange={(e) => update(index, { value: e.target.value })} />
          <button type="button" className="button link" aria-label={`Remove header ${index + 1}`} onClick={() => onChange(rows.filter((_, i) => i !== index))}>Remove</button>
        </div>
      ))}
      <div>
        <button type="button" className="button secondary" onClick={() => onChange([...rows, { name: '', value: '' }])}>Add a header</button>
      </div>
    </fieldset>
  );
}
