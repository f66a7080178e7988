import { queryOptions } from '@tanstack/react-query';
import { api } from './client.js';

/**
 * The signed-in user (GET /users/me), one cache entry for the layout, which reads it again at
 * each page change, and for the profile page, which then shows it without asking again.
 */
export const meQuery = queryOptions({ queryKey: ['me'], queryFn: () => api.GET('/api/v1/users/me') });
