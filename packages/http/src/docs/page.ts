import type { OpenApiDocument } from './document.ts';

/** A self-contained API reference page (no CDN: the service must work offline). */
type Json = Record<string, unknown>;

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch);

function schemaBlock(schema: unknown): string {
  if (schema === undefined) return '';
  return `<pre>${escapeHtml(JSON.stringify(schema, null, 2))}</pre>`;
}

function operationHtml(method: string, path: string, operation: Json): string {
  const summary = typeof operation.summary === 'string' ? operation.summary : '';
  const description = typeof operation.description === 'string' ? `<p>${escapeHtml(operation.description)}</p>` : '';
  const body = (operation.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
  const bodySchema = body ? Object.values(body)[0]?.schema : undefined;
  const parameters = Array.isArray(operation.parameters) ? (operation.parameters as Json[]) : [];
  const responses = Object.entries((operation.responses as Record<string, Json>) ?? {})
    .map(
      ([status, response]) =>
        `<li><code>${escapeHtml(status)}</code> ${escapeHtml(String(response.description ?? ''))}</li>`,
    )
    .join('');
  const params = parameters.length
    ? `<h4>Parameters</h4><ul>${parameters
        .map((p) => `<li><code>${escapeHtml(String(p.name))}</code> (${escapeHtml(String(p.in))})</li>`)
        .join('')}</ul>`
    : '';
  return `<section id="${escapeHtml(`${method}-${path}`)}">
<h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
<p>${escapeHtml(summary)}</p>${description}${params}
${bodySchema ? `<h4>Request body</h4>${schemaBlock(bodySchema)}` : ''}
<h4>Responses</h4><ul>${responses}</ul></section>`;
}

export function renderReferencePage(document: OpenApiDocument): string {
  const { info } = document;
  const paths = (document.paths ?? {}) as Record<string, Record<string, Json>>;
  const sections: string[] = [];
  const toc: string[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      toc.push(
        `<li><a href="#${escapeHtml(`${method}-${path}`)}">${method.toUpperCase()} ${escapeHtml(path)}</a></li>`,
      );
      sections.push(operationHtml(method, path, operation));
    }
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(String(info.title ?? 'API'))}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
pre{background:#f4f4f6;padding:.75rem;overflow:auto;font-size:.85rem}.m{font-weight:700;padding:.1rem .4rem;border-radius:4px;color:#fff}
.get{background:#2b7a3d}.post{background:#2456a6}.delete{background:#a62424}section{border-top:1px solid #ddd;padding-top:.5rem}</style>
</head><body><h1>${escapeHtml(String(info.title ?? 'API'))}</h1><p>${escapeHtml(String(info.description ?? ''))}</p>
<p>Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1).</p>
<h2>Endpoints</h2><ul>${toc.join('')}</ul>${sections.join('\n')}</body></html>`;
}
