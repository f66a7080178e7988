import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';

export const MAX_PAGE_SIZE = 500;

export const PageQuery = {
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: '1-based page number' }),
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 50, description: 'Items per page' }),
};

export interface Page {
  page: number;
  limit: number;
  offset: number;
}

export function toPage(query: { page?: number; limit?: number }): Page {
  const page = query.page ?? 1;
  const limit = query.limit ?? 50;
  return { page, limit, offset: (page - 1) * limit };
}

/** The pagination headers every list sends. */
export function setPageHeaders(reply: FastifyReply, page: Page, total: number): void {
  reply.header('X-Total-Count', String(total));
  reply.header('X-Page', String(page.page));
  reply.header('X-Per-Page', String(page.limit));
  reply.header('X-Total-Pages', String(Math.ceil(total / page.limit)));
}
