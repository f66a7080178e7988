import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client.js';
import { ErrorBanner, Field, formatNumber } from '../../components/ui.js';
import type { PolicyCreate, PolicyDryRun } from './policy-fields.js';

/** A day of the date inputs as an instant: the start of the first day, the end of the last, in local time. */
const startOfDay = (day: string) => new Date(`${day}T00:00:00`).toISOString();
const endOfDay = (day: string) => new Date(`${day}T23:59:59.999`).toISOString();

/**
 * What the policy being edited would have done to the interactions already stored
 * (POST /policies/dry-run, admin only): nothing is stored, no alert is raised.
 */
export function DryRunPreview({ body }: { body: PolicyCreate }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const preview = useMutation({
    mutationFn: () => api.POST('/api/v1/policies/dry-run', {
      params: { query: { ...(from ? { start_date: startOfDay(from) } : {}), ...(to ? { end_date: endOfDay(to) } : {}) } },
      body,
    }),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    preview.mutate();
  }

  return (
    <section className="card" aria-labelledby="preview-title">
      <h2 id="preview-title">Preview</h2>
      <p className="muted">
        What this policy, as it is in the form, would have done to the interactions already recorded.
        Nothing is saved and no alert is raised.
      </p>
      <form onSubmit={submit} aria-label="Preview">
        <div className="filters">
          <Field label="From">
            <input type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
          </Field>
          <Field label="To">
            <input type="date" value={to} onChange={(e) => setTo(e.target.value)} />
          </Field>
          <button type="submit" className="button secondary" disabled={preview.isPending}>
            {preview.isPending ? 'Previewing…' : 'Preview'}
          </button>
        </div>
      </form>
      {preview.error && <ErrorBanner error={preview.error} />}
      {preview.data && <DryRunResult result={preview.data} />}
    </section>
  );
}

function DryRunResult({ result }: { result: PolicyDryRun }) {
  return (
    <div data-testid="dry-run-result">
      <div className="kpis">
        <div className="kpi"><div className="muted">Matched</div><div className="value" data-testid="dry-run-matched">{formatNumber(result.matched)}</div></div>
        <div className="kpi"><div className="muted">Alerts it would raise</div><div className="value">{formatNumber(result.alerts)}</div></div>
        <div className="kpi"><div className="muted">Interactions examined</div><div className="value">{formatNumber(result.scanned)}</div></div>
      </div>
      <dl className="details">
        <dt>Would be blocked</dt><dd>{formatNumber(result.by_action.block)}</dd>
        <dt>Would be coached</dt><dd>{formatNumber(result.by_action.coach)}</dd>
        <dt>Would be logged</dt><dd>{formatNumber(result.by_action.log)}</dd>
      </dl>
      <p className="muted">
        Counted by the strongest action each interaction would get: this policy's, or a stronger one another policy already gave it.
      </p>
      {result.truncated ? (
        <div className="banner" role="note" style={{ background: '#fff3dc', color: 'var(--warn)', border: '1px solid #f0d48a' }}>
          Not every interaction was examined: only the newest {formatNumber(result.scanned)} of the period were,
          so older ones are missing from these counts. Choose a shorter period to examine all of it.
        </div>
      ) : (
        <p>Every interaction of the period was examined.</p>
      )}
      <h3>Newest matching interactions</h3>
      {result.sample_ids.length === 0 ? (
        <p className="muted">No interaction matches.</p>
      ) : (
        <ul>
          {result.sample_ids.map((id) => (
            <li key={id}><Link to={`/interactions/${id}`}><code>{id}</code></Link></li>
          ))}
        </ul>
      )}
    </div>
  );
}
