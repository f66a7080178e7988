import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client.js';

/** The event catalog (`GET /event-types`): what a webhook can subscribe to and what a test can send. */
export function useEventTypes() {
  return useQuery({
    queryKey: ['event-types'],
    queryFn: () => api.GET('/api/v1/event-types'),
    staleTime: Infinity,
  });
}
