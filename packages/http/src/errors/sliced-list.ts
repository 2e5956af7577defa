import { z } from '@hono/zod-openapi';
import { giveWay } from '@memgate/core';
import type { Context } from 'hono';
import type { PrepareBody } from './json-body.ts';
import { fromZodError } from './zod.ts';

/** Items checked in one go: 100,000 messages at once hold the event loop ~100 ms (the body limit allows that many). */
const ITEMS_PER_SLICE = 2_000;

/**
 * Checks a long list field (the proxy's `messages`) in slices, giving way between them, so that no request holds the
 * event loop while it is validated (DESIGN.md section 4, "Size and time"). It runs as `jsonBody`'s `prepare`, before
 * the library's validator, which then checks the rest of the body with one checked item standing in for the list;
 * the handler reads the whole list with `itemsOf(c)`. A list short enough to check at once is left to the validator.
 */
export function validateInSlices<T extends z.ZodType>(field: string, item: T, code: string) {
  const checked = new WeakMap<Request, z.output<T>[]>();
  const slice = z.array(item);
  const prepare: PrepareBody = async function checkListInSlices(body, c) {
    const list = body[field];
    if (!Array.isArray(list) || list.length <= ITEMS_PER_SLICE) return body;
    const items: z.output<T>[] = [];
    for (let start = 0; start < list.length; start += ITEMS_PER_SLICE) {
      await giveWay();
      const result = slice.safeParse(list.slice(start, start + ITEMS_PER_SLICE));
      if (!result.success) {
        // Paths within the slice become paths within the request ("messages[2041].content").
        const issues = result.error.issues.map((issue) => ({
          ...issue,
          path: [field, Number(issue.path[0]) + start, ...issue.path.slice(1)],
        }));
        throw fromZodError({ issues }, code);
      }
      items.push(...result.data);
    }
    checked.set(c.req.raw, items);
    return { ...body, [field]: list.slice(0, 1) };
  };
  return {
    prepare,
    /** The whole list when it was checked in slices, else undefined (the validated body holds it). */
    itemsOf: (c: Context): z.output<T>[] | undefined => checked.get(c.req.raw),
  };
}
