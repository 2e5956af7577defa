import { describe, expect, it, vi } from 'vitest';

const conversions = vi.hoisted(() => ({ count: 0 }));
vi.mock('./schemas.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./schemas.ts')>();
  return {
    ...actual,
    jsonSchemaOf: (...args: Parameters<typeof actual.jsonSchemaOf>) => {
      conversions.count += 1;
      return actual.jsonSchemaOf(...args);
    },
  };
});

const { MEMORY_TOOLS } = await import('./tools.ts');

describe('MEMORY_TOOLS', () => {
  it('converts the tools schemas to JSON Schema when they are first listed, not at a cold start', () => {
    // A Lambda instance that serves a tools/call first never needs the JSON Schemas (8 conversions).
    expect(MEMORY_TOOLS.map((tool) => tool.name)).toEqual([
      'add_memory',
      'search_memory',
      'delete_memory',
      'list_documents',
    ]);
    expect(conversions.count).toBe(0);
    const listed = MEMORY_TOOLS.map((tool) => tool.definition);
    expect(conversions.count).toBe(8);
    expect(listed.map((definition) => definition.name)).toEqual(MEMORY_TOOLS.map((tool) => tool.name));
    expect(listed[0]?.inputSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['content']) });
    // Built once: the next listing answers the same definitions without converting again.
    expect(MEMORY_TOOLS.map((tool) => tool.definition)).toEqual(listed);
    expect(MEMORY_TOOLS[0]?.definition).toBe(listed[0]);
    expect(conversions.count).toBe(8);
  });
});
