import { Link } from 'react-router';
import { PageHeader } from '../components/ui.js';

export function NotFoundPage() {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>There is no page here. <Link to="/">Back to the overview</Link>.</p>
    </>
  );
}
