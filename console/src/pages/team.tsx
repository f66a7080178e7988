import { PageHeader } from '../components/ui.js';

export function TeamPage() {
  return <PageHeader title="Team" />;
}
