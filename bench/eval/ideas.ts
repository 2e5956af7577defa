/**
 * Ideas tried on the evaluation (issue #13, item 4), one row each in EVAL.md: what was measured before and after
 * (with `npm run eval`, the figures of that run) and whether the change was kept. Kept only if it helps.
 */
export interface Idea {
  idea: string;
  area: 'retrieval' | 'history filter';
  before: string;
  after: string;
  kept: boolean;
  note?: string;
}

export const IDEAS: Idea[] = [];
