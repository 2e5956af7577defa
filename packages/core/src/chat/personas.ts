import { cutWhole } from '../text.ts';

/** The configured personas by name; any other persona text is used as the system prompt itself. */
export const PERSONAS: Readonly<Record<string, string>> = {
  default:
    'You are memgate, a helpful assistant. Answer the user clearly, using the provided context when it is relevant, and say so when you do not know.',
  concise: 'You are memgate. Answer in as few words as possible: one or two sentences, no preamble.',
  technical:
    'You are memgate, a precise technical assistant. Give exact, detailed answers with correct terminology; include code or commands when they help.',
};

/** The system prompt for `persona`: a configured name, else the free text itself, else the default. */
export function personaPrompt(
  persona: string | undefined,
  personas: Readonly<Record<string, string>> = PERSONAS,
): string {
  const name = persona?.trim() ?? '';
  if (name === '') return personas.default ?? PERSONAS.default ?? '';
  // Own names only: a persona such as "constructor" or "__proto__" is free text, not an Object.prototype member.
  return Object.hasOwn(personas, name) ? (personas[name] as string) : name;
}

/** A session title from its first question: the first line, cut at a word boundary near 80 characters. */
export function titleOf(question: string): string {
  const line = question.trim().split('\n')[0]?.trim() ?? '';
  if (line.length <= 80) return line === '' ? 'New chat' : line;
  const cut = cutWhole(line, 80);
  const space = cut.lastIndexOf(' ');
  return `${(space > 40 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
