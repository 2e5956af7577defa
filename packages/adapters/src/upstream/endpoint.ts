/**
 * An OpenAI-compatible base URL split for joining endpoint paths: `{base}/{path}{query}`. A base URL may carry a
 * query (Azure's `?api-version=…`); it goes after the endpoint's path, not inside it.
 */
export function splitBaseUrl(baseUrl: URL | string): { base: string; query: string } {
  const url = new URL(baseUrl);
  const query = url.search;
  url.search = '';
  url.hash = '';
  return { base: url.href.replace(/\/+$/, ''), query };
}
