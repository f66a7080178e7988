import { useMutation } from '@tanstack/react-query';
import { api } from '../../api/client.js';
import { ErrorBanner, SuccessBanner } from '../../components/ui.js';

/**
 * Reads the provider's discovery document and keys for the issuer typed (or the stored one when
 * the field is empty): nothing is saved. A provider that cannot be used is an answer (ok: false)
 * with its reason, not an API error.
 */
export function useConnectionTest() {
  return useMutation({
    mutationFn: (issuer: string) => api.POST('/api/v1/tenant/sso/test', { body: issuer ? { issuer } : {} }),
  });
}

export function ConnectionTestResult({ test }: { test: ReturnType<typeof useConnectionTest> }) {
  if (test.error) return <ErrorBanner error={test.error} />;
  if (!test.data) return null;
  if (!test.data.ok) return <ErrorBanner message={`Connection to ${test.data.issuer} failed. ${test.data.message}`} />;
  return (
    <SuccessBanner>
      Connection to {test.data.issuer} works. {test.data.message}.
      <dl className="details" style={{ marginTop: 8 }}>
        <dt>Authorization endpoint</dt>
        <dd><code>{test.data.authorization_endpoint}</code></dd>
        <dt>Token endpoint</dt>
        <dd><code>{test.data.token_endpoint}</code></dd>
      </dl>
    </SuccessBanner>
  );
}
