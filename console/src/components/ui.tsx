import { cloneElement, useId, type ReactElement, type ReactNode } from 'react';
import { errorMessage } from '../api/client.js';

/** A labelled control: the label is tied to the one input, select or textarea passed as child. */
export function Field({ label, hint, children }: { label: string; hint?: string; children: ReactElement<{ id?: string; 'aria-describedby'?: string }> }) {
  const id = useId();
  const control = cloneElement(children, { id, 'aria-describedby': hint ? `${id}-hint` : undefined });
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {control}
      {hint && <small id={`${id}-hint`} className="muted">{hint}</small>}
    </div>
  );
}

export function ErrorBanner({ message, error }: { message?: string; error?: unknown }) {
  return <div className="banner error" role="alert">{message ?? errorMessage(error)}</div>;
}

export function SuccessBanner({ children }: { children: ReactNode }) {
  return <div className="banner success" role="status">{children}</div>;
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return <p className="muted" role="status" aria-live="polite">{label}</p>;
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

export function PageHeader({ title, actions, children }: { title: string; actions?: ReactNode; children?: ReactNode }) {
  return (
    <div className="page-header">
      <div>
        <h1>{title}</h1>
        {children && <p className="muted">{children}</p>}
      </div>
      {actions && <div className="actions">{actions}</div>}
    </div>
  );
}

export function Badge({ tone = 'neutral', children }: { tone?: 'neutral' | 'good' | 'warn' | 'bad' | 'info'; children: ReactNode }) {
  return <span className={`badge ${tone}`}>{children}</span>;
}

/** A query's states in one place: loading, the API's error sentence, or the content. */
export function QueryState<T>({ query, children }: { query: { isPending: boolean; error: unknown; data: T | undefined }; children: (data: T) => ReactNode }) {
  if (query.error) return <ErrorBanner error={query.error} />;
  if (query.isPending || query.data === undefined) return <Loading />;
  return <>{children(query.data)}</>;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatDate(value: string | null | undefined): string {
  return value ? dateTime.format(new Date(value)) : '—';
}

export function formatNumber(value: number): string {
  return value.toLocaleString();
}
