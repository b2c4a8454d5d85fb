// Keeping a long text to a fixed size without losing its ends: the start
// (what it is) and the end (often the verdict: an error, a summary), with a
// note in the middle saying how much was left out. runCommand's output and
// every tool result fae puts in the conversation are cut this way.

/** Of what is kept, this part comes from the end. */
export const TAIL_FRACTION = 0.2;

/**
 * `text` cut to about `keep` characters. `total` is how long the whole
 * text was, when `text` itself is already only its head and tail (a
 * stream collector keeps no more); by default it is `text.length`.
 */
export const cutMiddle = (text: string, keep: number, total = text.length): string => {
  if (total <= keep) return text;
  const tailLength = Math.floor(keep * TAIL_FRACTION);
  const omitted = total - keep;
  return `${text.slice(0, keep - tailLength)}\n[… ${omitted} characters omitted …]\n${text.slice(text.length - tailLength)}`;
};
harden(cutMiddle);
