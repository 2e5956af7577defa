import type { z } from '@hono/zod-openapi';

/** An object schema's fields, as zod keeps them. */
export type ObjectSchema = { shape: Record<string, z.ZodType> };

/** The fields of `schema` that refuse null. */
export function refusingNull(schema: ObjectSchema): ReadonlySet<string> {
  return new Set(Object.keys(schema.shape).filter((key) => !schema.shape[key]?.safeParse(null).success));
}

/**
 * `body` without the fields `refused` names that were sent as null (a copy only when one was). Clients that keep
 * unset fields as null (pydantic's model_dump, openai-python's None, agents on strict tool schemas) send every
 * optional field so, and that means what leaving it out means; a required field sent as null is then refused as
 * missing. A field whose schema takes null keeps it, for what null means there.
 */
export function withoutNulls(body: Record<string, unknown>, refused: ReadonlySet<string>): Record<string, unknown> {
  let kept: Record<string, unknown> | undefined;
  for (const key in body) {
    if (body[key] !== null || !refused.has(key)) continue;
    kept ??= { ...body };
    delete kept[key];
  }
  return kept ?? body;
}
