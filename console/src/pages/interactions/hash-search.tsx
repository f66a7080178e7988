import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api } from '../../api/client.js';
import { ErrorBanner, Field } from '../../components/ui.js';
import { ClassificationTypes, RiskBadge } from './badges.js';
import { formatTimestamp } from './filters.js';

/**
 * Finds where one content was sent, by its SHA-256: a single match opens it, several are listed
 * (newest first, as the API answers).
 */
export function HashSearch() {
  const navigate = useNavigate();
  const [hash, setHash] = useState('');
  const search = useMutation({
    mutationFn: (contentHash: string) => api.GET('/api/v1/interactions/search', { params: { query: { content_hash: contentHash, limit: 20 } } }),
    onSuccess: (matches) => {
      if (matches.length === 1 && matches[0]) navigate(`/interactions/${matches[0].id}`);
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    search.mutate(hash.trim());
  }

  return (
    <div className="card">
      <form role="search" aria-label="Find an interaction by its hash" className="filters" onSubmit={submit}>
        <Field label="Content hash" hint="The SHA-256 of the content, 64 hexadecimal characters.">
          <input value={hash} onChange={(e) => setHash(e.target.value)} required spellCheck={false} className="mono" size={70} />
        </Field>
        <button type="submit" className="button secondary" disabled={search.isPending}>{search.isPending ? 'Searching…' : 'Find'}</button>
      </form>
      {search.error && <ErrorBanner error={search.error} />}
      {search.data?.length === 0 && <p className="muted" role="status">No interaction has this content hash.</p>}
      {search.data && search.data.length > 1 && (
        <table className="data" aria-label="Interactions with this content hash">
          <thead><tr><th>Time</th><th>Platform</th><th>Risk</th><th>Classifications</th></tr></thead>
          <tbody>
            {search.data.map((match) => (
              <tr key={match.id}>
                <td><Link to={`/interactions/${match.id}`}>{formatTimestamp(match.timestamp)}</Link></td>
                <td>{match.platform_id}</td>
                <td><RiskBadge score={match.risk_score} /></td>
                <td><ClassificationTypes classifications={match.classifications} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
