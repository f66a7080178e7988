import type { components } from '@sdk/generated/openapi.js';
import { Badge, Empty } from '../../components/ui.js';
import { SeenElsewhere } from './seen-elsewhere.js';

type Classification = components['schemas']['Classification'];

/** `validated` is present only when the tenant validates signals. */
function Validated({ value }: { value: boolean | undefined }) {
  if (value === undefined) return <span className="muted" title="The tenant does not validate signals">not checked</span>;
  return value ? <Badge tone="good">validated</Badge> : <Badge tone="warn">not validated</Badge>;
}

export function ClassificationsTable({ classifications }: { classifications: Classification[] }) {
  if (classifications.length === 0) return <Empty>No sensitive data was detected in this interaction.</Empty>;
  return (
    <table className="data" aria-label="Classifications">
      <thead>
        <tr><th>Type</th><th>Value</th><th className="num">Confidence</th><th>Position</th><th>Validation</th><th>Elsewhere</th></tr>
      </thead>
      <tbody>
        {classifications.map((c, index) => (
          <tr key={index}>
            <td><Badge>{c.type}</Badge></td>
            <td>{c.value ? <code>{c.value}</code> : <span className="muted">—</span>}</td>
            <td className="num">{Math.round(c.score * 100)}%</td>
            <td className="muted">{c.start}–{c.end}</td>
            <td><Validated value={c.validated} /></td>
            <td>{c.fingerprint ? <SeenElsewhere fingerprint={c.fingerprint} type={c.type} value={c.value} /> : <span className="muted">—</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
