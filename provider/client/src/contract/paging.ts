// Query parameters for paged lists (offset default 0, limit default 10, at most 100: docs/api-contract.md#7-paging).
import { z } from 'zod';
import { LIMITS } from './limits';

/** A whole number, or nothing: `?offset=` with no value means the default. */
const optionalWholeNumber = z
  .string()
  .regex(/^\d*$/, { message: 'must be a whole number', abort: true })
  .refine((value) => Number.isSafeInteger(Number(value)), `must be at most ${Number.MAX_SAFE_INTEGER}`)
  .optional()
  .transform((value) => (value === undefined || value === '' ? undefined : Number(value)));

export const PageQuery = z.object({
  offset: optionalWholeNumber.transform((value) => value ?? 0),
  limit: optionalWholeNumber
    .transform((value) => value ?? LIMITS.pageLimitDefault)
    .refine((value) => value >= 1 && value <= LIMITS.pageLimitMax, {
      message: `must be between 1 and ${LIMITS.pageLimitMax}`,
    }),
});
export type PageQuery = z.output<typeof PageQuery>;
