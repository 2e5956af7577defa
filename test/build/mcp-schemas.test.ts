import { describe, expect, it } from 'vitest';
import { mcpSchemasOnUse, ROOT } from '../../scripts/build-plugins.ts';
import { bundleSource } from '../support/bundle-source.ts';

// scripts/build-plugins.ts, mcpSchemasOnUse: the MCP SDK's types.js builds its schemas only where the bundle uses them.
async function bundle(withPlugin: boolean): Promise<string> {
  const source =
    "import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';\nexport const parse = (message) => CallToolRequestSchema.safeParse(message).success;";
  return bundleSource(source, ROOT, withPlugin ? [mcpSchemasOnUse] : []);
}

describe('the MCP SDK schemas in a bundle', () => {
  it('are only those the bundled code reads, each still built and working', async () => {
    const [kept, all] = await Promise.all([bundle(true), bundle(false)]);
    // A request kind nothing here reads: built at import without the plugin, left out with it.
    expect(all).toContain('notifications/resources/updated');
    expect(kept).not.toContain('notifications/resources/updated');
    expect(kept.length).toBeLessThan(all.length * 0.8);
    const { parse } = (await import(`data:text/javascript,${encodeURIComponent(kept)}`)) as {
      parse(message: unknown): boolean;
    };
    expect(parse({ method: 'tools/call', params: { name: 'search_memory', arguments: { query: 'x' } } })).toBe(true);
    expect(parse({ method: 'tools/call', params: {} })).toBe(false);
  });
});
