// Query parameters for paged lists (design section 1: offset default 0, limit default 10, at most 100).
import { z } from 'zod';
import { LIMITS } from './limits';

const wholeNumber = z
  .string()
  .regex(/^\d{1,9}$/, 'must be a whole number')
  .transform((value) => Number(value));

export const PageQuery = z.object({
  offset: wholeNumber.optional().transform((value) => value ?? 0),
  limit: wholeNumber
    .optional()
    .transform((value) => value ?? LIMITS.pageLimitDefault)
    .refine((value) => value >= 1 && value <= LIMITS.pageLimitMax, {
      message: `must be between 1 and ${LIMITS.pageLimitMax}`,
    }),
});
export type PageQuery = z.output<typeof PageQuery>;
