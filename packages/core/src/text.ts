/**
 * The first `length` UTF-16 units of `text`, one fewer when the cut would fall between the two halves of a surrogate
 * pair (an emoji, a rarer CJK character): a lone half is not text, and clients show it as U+FFFD.
 */
export function cutWhole(text: string, length: number): string {
  const last = text.charCodeAt(length - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? length - 1 : length);
}
