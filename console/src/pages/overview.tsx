import { PageHeader } from '../components/ui.js';

export function OverviewPage() {
  return <PageHeader title="Overview" />;
}
