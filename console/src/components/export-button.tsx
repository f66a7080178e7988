import type { paths } from '@sdk/generated/openapi.js';
import { useMutation } from '@tanstack/react-query';
import { api, ApiError } from '../api/client.js';

type ExportPath = '/api/v1/interactions/export' | '/api/v1/audit-log/export';
type ExportQuery<P extends ExportPath> = Omit<NonNullable<paths[P]['get']['parameters']['query']>, 'format'>;

/** The file name the service gives in Content-Disposition (`attachment; filename="…"`). */
function fileName(disposition: string | null): string | undefined {
  return /filename="?([^";]+)"?/i.exec(disposition ?? '')?.[1];
}

/**
 * Downloads an export as CSV. It needs the session's Authorization header, which a plain link
 * cannot send: the file is fetched through the API client (so a 401 ends the session like any
 * call) and saved from an object URL by a temporary <a download>.
 */
export function ExportButton<P extends ExportPath>({ path, query, fallbackName, onError }: {
  path: P;
  query: ExportQuery<P>;
  fallbackName: string;
  onError(error: unknown): void;
}) {
  const download = useMutation({
    mutationFn: async () => {
      onError(null);
      const get = api.raw.GET as (path: ExportPath, init: object) => Promise<{ data?: Blob; error?: unknown; response: Response }>;
      const { data, error, response } = await get(path, { params: { query: { ...query, format: 'csv' } }, parseAs: 'blob' });
      if (!response.ok || !data) throw ApiError.from(response, error);
      const url = URL.createObjectURL(data);
      const link = document.createElement('a');
      link.href = url;
      link.download = fileName(response.headers.get('content-disposition')) ?? fallbackName;
      document.body.append(link);
      link.click();
      link.remove();
      // The browser has taken the file once the click is handled; the URL is only freed later.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    },
    onError,
  });

  return (
    <button type="button" className="button secondary" onClick={() => download.mutate()} disabled={download.isPending}>
      {download.isPending ? 'Exporting…' : 'Export CSV'}
    </button>
  );
}
