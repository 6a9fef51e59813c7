// The response envelope and the error envelope (docs/api-contract.md#6-responses-of-each-operation, #8-errors), as
// schemas and builders.
import { z } from 'zod';

export const OkStatus = z
  .object({ code: z.number().int() })
  .meta({ id: 'OkStatus', description: 'The status of a successful answer: its HTTP status code.' });

export function dataEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ data, status: OkStatus });
}

export const Pagination = z
  .object({ total_count: z.number().int(), count: z.number().int() })
  .meta({ id: 'Pagination', description: 'How many items match in all, and how many this page holds.' });
export const PageFilters = z
  .object({ offset: z.number().int(), limit: z.number().int() })
  .meta({ id: 'PageFilters', description: 'The paging this page was read with.' });

export function listEnvelope<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    status: OkStatus,
    extra: z.object({ pagination: Pagination, filters: PageFilters }),
  });
}

/** The body of a paged list response (docs/api-contract.md#7-paging): the page, its size and the total, and the paging used. */
export function pagedList<T>(items: T[], total: number, filters: { offset: number; limit: number }) {
  return {
    data: items,
    status: { code: 200 },
    extra: {
      pagination: { total_count: total, count: items.length },
      filters: { offset: filters.offset, limit: filters.limit },
    },
  };
}

export const FieldErrors = z.record(z.string(), z.array(z.string()));
export type FieldErrors = z.infer<typeof FieldErrors>;

export const ErrorEnvelope = z
  .object({
    data: z.null(),
    status: z.object({
      code: z.number().int(),
      is_success: z.literal(false),
      user_message: z.string(),
      developer_message: z.string(),
    }),
    extra: z.object({ field_errors: FieldErrors }).optional(),
  })
  .meta({
    id: 'ErrorEnvelope',
    description:
      'Every error: status.code is the HTTP status, developer_message a stable code, user_message for people; ' +
      'extra.field_errors only on validation errors.',
  });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/**
 * The least of an error envelope, which tells the API's own error answer from another server's (a proxy's page for
 * a path it does not know): dbt Cloud's 404 may leave out developer_message.
 */
export const ErrorStatus = z.object({
  status: z.object({
    code: z.number().int(),
    is_success: z.literal(false),
    developer_message: z.string().nullish(),
  }),
});

/** jobhooks' developer_message for a path it does not serve: a 404 that says nothing of any webhook. */
export const ROUTE_NOT_FOUND = 'route_not_found';

/** Error statuses every authenticated route can answer with; each route adds its own. */
export const COMMON_ERROR_RESPONSES = {
  400: ErrorEnvelope,
  401: ErrorEnvelope,
  403: ErrorEnvelope,
  404: ErrorEnvelope,
  413: ErrorEnvelope,
  415: ErrorEnvelope,
  429: ErrorEnvelope,
} as const;
