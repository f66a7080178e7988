import { useState } from 'react';
import { api, ApiError } from '../../api/client.js';
import type { ExportQuery } from './filters.js';

/** The file name the service gives in Content-Disposition (`attachment; filename="…"`). */
function fileName(disposition: string | null): string {
  return /filename="?([^";]+)"?/i.exec(disposition ?? '')?.[1] ?? 'interactions.csv';
}

/**
 * Downloads the interactions the filters select as CSV. The export needs the session's
 * Authorization header, which a plain link cannot send: it is fetched through the API client,
 * then saved from an object URL by a temporary <a download>.
 */
export function ExportButton({ query, onError }: { query: ExportQuery; onError(error: unknown): void }) {
  const [busy, setBusy] = useState(false);

  async function download() {
    setBusy(true);
    onError(null);
    try {
      const { data, error, response } = await api.raw.GET('/api/v1/interactions/export', {
        params: { query: { ...query, format: 'csv' } },
        parseAs: 'blob',
      });
      if (!response.ok || !data) throw ApiError.from(response, error);
      const url = URL.createObjectURL(data);
      const link = document.createElement('a');
      link.href = url;
      link.download = fileName(response.headers.get('content-disposition'));
      document.body.append(link);
      link.click();
      link.remove();
      // The browser has taken the file once the click is handled; the URL is only freed later.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (caught) {
      onError(caught);
    } finally {
      setBusy(false);
    }
  }

  return (
    <button type="button" className="button secondary" onClick={download} disabled={busy}>
      {busy ? 'Exporting…' : 'Export CSV'}
    </button>
  );
}
