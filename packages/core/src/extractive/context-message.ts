/** A stored passage as the proxy injects it and the extractive responder reads it back. */
export interface ContextPassage {
  fileName: string;
  text: string;
}

/** First line of the injected context system message; the responder finds its input by it. */
export const CONTEXT_MESSAGE_MARKER = '[memgate:context]';
const HEADER = /^--- memgate passage \d+: (.*) ---$/;

/** The one system message the proxy injects: the caller's relevant stored context, in a parseable form. */
export function formatContextMessage(passages: readonly ContextPassage[]): string {
  const body = passages
    .map(
      (passage, index) =>
        `--- memgate passage ${index + 1}: ${passage.fileName.replace(/\n/g, ' ')} ---\n${passage.text}`,
    )
    .join('\n');
  return `${CONTEXT_MESSAGE_MARKER} Relevant context from the user's stored records; use it when it helps answer.\n${body}`;
}

/** Reads passages back from a context message; [] for any other text. */
export function parseContextMessage(content: string): ContextPassage[] {
  if (!content.startsWith(CONTEXT_MESSAGE_MARKER)) return [];
  const passages: ContextPassage[] = [];
  let current: ContextPassage | undefined;
  for (const line of content.split('\n').slice(1)) {
    const header = HEADER.exec(line);
    if (header) {
      current = { fileName: header[1] ?? '', text: '' };
      passages.push(current);
    } else if (current) {
      current.text = current.text === '' ? line : `${current.text}\n${line}`;
    }
  }
  return passages;
}
