/**
 * An OpenAI-compatible base URL split for joining endpoint paths: `{base}/{path}{query}`. A base URL may carry a
 * query (Azure's `?api-version=…`); it goes after the endpoint's path, not inside it.
 */
export function splitBaseUrl(baseUrl: URL | string): { base: string; query: string } {
  const url = new URL(baseUrl);
  const query = url.search;
  url.search = '';
  url.hash = '';
  return { base: withoutTrailingSlashes(url.href), query };
}

/** Not `/\/+$/`: a regex tries it from each slash of a run, quadratic in a run that does not end the text. */
function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end -= 1;
  return text.slice(0, end);
}
