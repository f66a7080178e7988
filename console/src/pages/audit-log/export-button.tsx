import { useState } from 'react';
import { ApiError } from '../../api/client.js';
import { getSession, setSession } from '../../api/session.js';

/**
 * Downloads the export of the filtered log. The SDK's client reads JSON, so the file is fetched
 * here with the session's token and saved from a Blob through a temporary <a download>.
 */
export function ExportButton({ query, onError }: { query: Record<string, string | undefined>; onError: (error: unknown) => void }) {
  const [busy, setBusy] = useState(false);

  async function download() {
    setBusy(true);
    onError(null);
    try {
      const search = new URLSearchParams({ format: 'csv' });
      for (const [key, value] of Object.entries(query)) if (value) search.set(key, value);
      const session = getSession();
      const response = await fetch(`/api/v1/audit-log/export?${search}`, {
        headers: session ? { authorization: `Bearer ${session.token}` } : {},
      });
      // As for the API client's calls: a 401 means the session ended.
      if (response.status === 401 && session) setSession(null);
      if (!response.ok) throw ApiError.from(response, await response.json().catch(() => null));
      const blob = await response.blob();
      saveBlob(blob, fileName(response.headers.get('content-disposition')) ?? 'audit-log.csv');
    } catch (caught) {
      onError(caught);
    } finally {
      setBusy(false);
    }
  }

  return <button type="button" className="button secondary" disabled={busy} onClick={download}>{busy ? 'Exporting…' : 'Export CSV'}</button>;
}

function fileName(disposition: string | null): string | undefined {
  const match = disposition?.match(/filename="?([^";]+)"?/);
  return match?.[1];
}

function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the URL; release it once the click has been handled.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
